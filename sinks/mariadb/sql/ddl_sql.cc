#include "sinks/mariadb/sql/ddl_sql.h"

#include "sinks/mariadb/sql/mdb_identifier.h"
#include "sinks/mariadb/sql/meta_columns.h"

namespace sluice::mdb {
namespace {

std::string table_name(const target_table& t) {
  return quote_table(t.schema, t.name);
}

std::string column(const column_spec& c) {
  return quote_identifier(c.name) + " " + c.definition;
}

std::string position_list() {
  std::string out;
  for (const std::string& c : meta::position_columns())
    out += (out.empty() ? "" : ", ") + quote_identifier(c);
  return out;
}

}  // namespace

std::string create_database_sql(const std::string& database, sql_dialect dialect) {
  return "CREATE DATABASE IF NOT EXISTS " + quote_identifier(database) +
         " CHARACTER SET utf8mb4 COLLATE " + std::string(dialect.text_collation());
}

std::string create_table_sql(const table_definition& def, sql_dialect dialect) {
  std::string cols, key;
  for (const column_spec& c : def.key) {
    cols += (cols.empty() ? "" : ", ") + column(c);
    key += (key.empty() ? "" : ", ") + quote_identifier(c.name);
  }
  for (const column_spec& c : def.columns)
    cols += (cols.empty() ? "" : ", ") + column(c);
  if (!key.empty()) cols += ", PRIMARY KEY (" + key + ")";
  if (def.position_index) {
    cols += ", UNIQUE KEY " + quote_identifier(meta::position_index) + " (" + position_list() + ")";
  }
  return "CREATE TABLE IF NOT EXISTS " + table_name(def.target) + " (" + cols +
         ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=" + std::string(dialect.text_collation());
}

std::string add_columns_sql(const target_table& target, const std::vector<column_spec>& columns,
                            sql_dialect dialect) {
  const char* add = dialect.mysql ? "ADD COLUMN " : "ADD COLUMN IF NOT EXISTS ";
  std::string out = "ALTER TABLE " + table_name(target);
  for (size_t i = 0; i < columns.size(); ++i)
    out += (i == 0 ? " " : ", ") + std::string(add) + column(columns[i]);
  return out;
}

std::string widen_columns_sql(const target_table& target, const std::vector<column_spec>& columns) {
  std::string out = "ALTER TABLE " + table_name(target);
  for (size_t i = 0; i < columns.size(); ++i)
    out += (i == 0 ? " " : ", ") + std::string("MODIFY COLUMN ") + column(columns[i]);
  return out;
}

std::string position_index_sql(const target_table& target, sql_dialect dialect) {
  const std::string index = quote_identifier(meta::position_index);
  if (dialect.mysql) {
    return "CREATE UNIQUE INDEX " + index + " ON " + table_name(target) + " (" + position_list() +
           ")";
  }
  return "ALTER TABLE " + table_name(target) + " ADD UNIQUE INDEX IF NOT EXISTS " + index + " (" +
         position_list() + ")";
}

}  // namespace sluice::mdb
