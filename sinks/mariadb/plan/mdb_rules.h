#pragma once

#include <string>

#include "sinks/plan/table_planner.h"

namespace sluice::mdb {

// MariaDB's rules for the planner (the model: postgres/plan/pg_rules.h): identifiers of at most
// 64, and the targets no message may reach — sluice's state database, and the server's own
// (mysql, information_schema, performance_schema, sys). A "schema" is a database.
//
// MariaDB counts an identifier's characters, the planner counts bytes: a name of multi-byte
// characters is refused from 65 bytes on though MariaDB would take up to 64 characters. Stricter,
// never looser, and the same bound the planner checks everywhere else.
//
// MariaDB keeps identifiers in utf8mb3: a database or table name with a character beyond the
// Basic Multilingual Plane (an emoji: 4 bytes in UTF-8) cannot exist, and is refused here as a
// routing dead letter. (A column name so made fails its table's DDL with 1300: table_ddl.h.)
//
// Names are compared case-insensitively (ASCII): with lower_case_table_names = 1 or 2 (Windows,
// macOS, or set so) the server folds database names, and `MySQL` is then `mysql`. Refusing
// `Sluice` beside a state database `sluice` on a case-sensitive server costs nothing.
target_rules mariadb_target_rules(std::string state_database);

}  // namespace sluice::mdb
