#include "sinks/postgres/sql/ddl_sql.h"

#include "sinks/postgres/sql/pg_identifier.h"

namespace sluice {

std::string create_table_sql(const table_definition& def) {
  std::string cols, key;
  for (const column_def& c : def.key) {
    cols += (cols.empty() ? "" : ", ") + quote_identifier(c.name) + " " + c.type;
    key += (key.empty() ? "" : ", ") + quote_identifier(c.name);
  }
  for (const column_def& c : def.columns) {
    cols += (cols.empty() ? "" : ", ") + quote_identifier(c.name) + " " + c.type;
  }
  if (!key.empty()) cols += ", PRIMARY KEY (" + key + ")";
  return "CREATE TABLE IF NOT EXISTS " + qualified_name(def.target) + " (" + cols + ")";
}

std::string add_columns_sql(const target_table& target, const std::vector<column_def>& columns) {
  std::string out = "ALTER TABLE " + qualified_name(target);
  for (size_t i = 0; i < columns.size(); ++i) {
    out += (i == 0 ? " " : ", ") + std::string("ADD COLUMN IF NOT EXISTS ") +
           quote_identifier(columns[i].name) + " " + columns[i].type;
  }
  return out;
}

std::string widen_columns_sql(const target_table& target, const std::vector<column_def>& columns) {
  std::string out = "ALTER TABLE " + qualified_name(target);
  for (size_t i = 0; i < columns.size(); ++i) {
    out += (i == 0 ? " " : ", ") + std::string("ALTER COLUMN ") +
           quote_identifier(columns[i].name) + " TYPE " + columns[i].type;
  }
  return out;
}

std::string sql_type_for(value_kind kind, bool mixed) {
  if (mixed) return "text";
  switch (kind) {
    case value_kind::number:
      return "numeric";
    case value_kind::boolean:
      return "boolean";
    case value_kind::json:
      return "jsonb";
    case value_kind::bytes:
      return "bytea";
    case value_kind::string:
    case value_kind::null:
    case value_kind::absent:
      return "text";
  }
  return "text";
}

}  // namespace sluice
