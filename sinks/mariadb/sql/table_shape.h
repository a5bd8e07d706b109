#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/catalog/table_router.h"

namespace sluice::mdb {

struct column_def {
  std::string name;       // target name, unquoted
  std::string type;       // as information_schema.columns.column_type prints it ("decimal(12,2)")
  std::string collation;  // text columns' collation ("utf8mb4_nopad_bin"); "" for others
  bool nullable = true;
};

// A target table as MariaDB has it: what the writer converts values to and what auto-evolve
// compares a batch with (plan/table_shape_reader.h reads it; the model:
// postgres/sql/table_shape.h). A "schema" is a database.
struct table_shape {
  bool exists = false;
  std::vector<column_def> columns;       // in column order
  std::vector<std::string> primary_key;  // in key order; empty: no primary key
  // A unique index on an appended row's source position: what an append writes each
  // position once by.
  bool position_index = false;
  // Primary key columns indexed by a prefix only (PRIMARY KEY (k(10))): keys sharing the prefix
  // are one row to the index. Never adopted.
  std::vector<std::string> prefixed_key;

  const column_def* find(std::string_view name) const {
    for (const column_def& c : columns)
      if (c.name == name) return &c;
    return nullptr;
  }
};

}  // namespace sluice::mdb
