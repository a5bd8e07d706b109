#include "sinks/postgres/sql/table_shape.h"
#include "sinks/postgres/sql/pg_identifier.h"

namespace sluice {

const column_def* table_shape::find(std::string_view name) const {
  for (const column_def& c : columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string qualified_name(const target_table& table) {
  return quote_identifier(table.schema) + "." + quote_identifier(table.name);
}

}  // namespace sluice
