#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/sql/sql_dialect.h"

namespace sluice::mdb {

// The state stores' statements whose text differs on MySQL 8 (docs/mariadb.md: unit-tested,
// never run against a MySQL server), each given its table's quoted name. On MariaDB the text
// is the stores' own, byte for byte.
//
// Upserts read the inserted row through upsert_alias.h: VALUES(col) on MariaDB, the row alias
// `AS new` … new.col on MySQL.
std::string catalog_upsert_sql(const std::string& catalog, sql_dialect dialect);
std::string table_progress_upsert_sql(const std::string& table, sql_dialect dialect);
std::string member_beat_sql(const std::string& members, sql_dialect dialect);
std::string control_target_sql(const std::string& control, sql_dialect dialect);
std::string control_restart_sql(const std::string& control, sql_dialect dialect);
std::string offset_set_sql(const std::string& table, sql_dialect dialect);

// DELETE … RETURNING `columns` (MariaDB ≥ 10.0): MySQL has no RETURNING, so there the rows are
// read with SELECT … FOR UPDATE and then deleted by the same WHERE — in the caller's
// transaction, the locks taken by the read keep anyone from changing what the DELETE removes.
// The statements in order; the rows come from the first.
std::vector<std::string> delete_returning_sql(const std::string& table, std::string_view where,
                                              std::string_view columns, sql_dialect dialect);
result delete_returning(connection& conn, const std::string& table, std::string_view where,
                        std::string_view columns, const std::vector<param>& params,
                        sql_dialect dialect);

}  // namespace sluice::mdb
