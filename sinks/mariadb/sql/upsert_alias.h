#pragma once

#include <string>
#include <string_view>

#include "sinks/mariadb/sql/sql_dialect.h"

namespace sluice::mdb {

// The row an INSERT … VALUES … ON DUPLICATE KEY UPDATE tried to insert, read in its UPDATE
// part. MariaDB has VALUES(col) only; MySQL 8 deprecated it (8.0.20) for the row alias
// (8.0.19): `INSERT … VALUES (…) AS new ON DUPLICATE KEY UPDATE c = new.c`. The MySQL text is
// unit-tested, never run here (docs/mariadb.md).
//
//   inserted_row_alias   what follows the VALUES row(s): "" on MariaDB, " AS new" on MySQL
//   inserted             the inserted value of `column` (SQL text: already quoted where it
//                        must be): "VALUES(column)" on MariaDB, "new.column" on MySQL
//   shared_lock          a SELECT's shared row locks: "LOCK IN SHARE MODE" on MariaDB (MySQL
//                        8 keeps it only as a deprecated synonym), "FOR SHARE" on MySQL
std::string_view inserted_row_alias(sql_dialect dialect);
std::string inserted(std::string_view column, sql_dialect dialect);
std::string_view shared_lock(sql_dialect dialect);

}  // namespace sluice::mdb
