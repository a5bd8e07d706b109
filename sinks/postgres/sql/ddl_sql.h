#pragma once

#include <string>
#include <vector>

#include "core/catalog/table_router.h"
#include "core/model/value.h"
#include "sinks/postgres/sql/table_shape.h"

// The SQL text of auto-create and auto-evolve (plan/table_ddl.h runs it). Identifiers are
// always quoted; pure functions, unit-tested without a database.

namespace sluice {

// A table as sluice creates it: key columns (the primary key), then the others.
struct table_definition {
  target_table target;
  std::vector<column_def> key;
  std::vector<column_def> columns;  // including sluice's metadata columns
};

std::string create_table_sql(const table_definition& def);
std::string add_columns_sql(const target_table& target, const std::vector<column_def>& columns);
// ALTER TABLE … ALTER COLUMN c TYPE t, … (auto.evolve.widen).
std::string widen_columns_sql(const target_table& target, const std::vector<column_def>& columns);
// The column type auto-create gives a column from the JSON kinds of its values (SPEC §4).
std::string sql_type_for(value_kind kind, bool mixed);

}  // namespace sluice
