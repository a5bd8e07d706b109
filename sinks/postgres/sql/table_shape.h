#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/catalog/table_router.h"

namespace sluice {

struct column_def {
  std::string name;  // target name, unquoted
  std::string type;  // SQL type as format_type() prints it ("numeric", "character varying(40)")
};

// A target table as the database has it: what the writer casts values to and what
// auto-evolve compares a batch with.
struct table_shape {
  bool exists = false;
  std::vector<column_def> columns;       // in column order
  std::vector<std::string> primary_key;  // in key order; empty: no primary key
  // A unique index on an appended row's source position (write_sql.h position_columns()):
  // what an append writes each position once by.
  bool position_index = false;
  // A partitioned table: a unique index must hold its partition key, so appends to it are not
  // deduplicated by position (written as before).
  bool partitioned = false;

  const column_def* find(std::string_view name) const;
};

// "schema"."table", each part quoted.
std::string qualified_name(const target_table& table);

}  // namespace sluice
