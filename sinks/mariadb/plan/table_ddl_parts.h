#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/catalog/table_router.h"
#include "core/model/column_type.h"
#include "sinks/mariadb/sql/ddl_sql.h"
#include "sinks/plan/table_plan.h"

// Small pieces table_ddl.cc and table_ddl_columns.cc share (not a public API).
namespace sluice::mdb::ddl_parts {

inline std::string label(const target_table& t) {
  return t.schema + "." + t.name;
}

// The type part of a definition ("varchar(80)" of "varchar(80) CHARACTER SET …").
inline std::string_view type_of(std::string_view definition) {
  return definition.substr(0, definition.find(' '));
}

inline bool has_items(const table_plan& plan) {
  return std::find(plan.rejected.begin(), plan.rejected.end(), 0) != plan.rejected.end();
}

inline void add_unique(std::vector<column_spec>& list, column_spec c) {
  for (const column_spec& have : list) {
    if (have.name == c.name) return;
  }
  list.push_back(std::move(c));
}

}  // namespace sluice::mdb::ddl_parts
