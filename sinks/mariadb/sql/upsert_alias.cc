#include "sinks/mariadb/sql/upsert_alias.h"

namespace sluice::mdb {

std::string_view inserted_row_alias(sql_dialect dialect) {
  return dialect.mysql ? " AS new" : "";
}

std::string inserted(std::string_view column, sql_dialect dialect) {
  if (dialect.mysql) return "new." + std::string(column);
  return "VALUES(" + std::string(column) + ")";
}

std::string_view shared_lock(sql_dialect dialect) {
  return dialect.mysql ? "FOR SHARE" : "LOCK IN SHARE MODE";
}

}  // namespace sluice::mdb
