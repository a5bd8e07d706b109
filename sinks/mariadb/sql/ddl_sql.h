#pragma once

#include <string>
#include <vector>

#include "core/catalog/table_router.h"
#include "sinks/mariadb/sql/sql_dialect.h"

// The SQL text of auto.create and auto.evolve on MariaDB (plan/table_ddl.h runs it; the model:
// postgres/sql/ddl_sql.h). Identifiers always backquoted; pure functions, unit-tested without a
// server. Every statement is idempotent on MariaDB (IF NOT EXISTS): DDL commits implicitly, so
// it runs outside any data transaction and may be run again after a failure part-way. The
// MySQL 8 texts (sql_dialect::mysql) lack IF NOT EXISTS where MySQL has none — the caller
// reads information_schema first and treats "already there" (1060, 1061) as done — and are
// unit-tested only, never run against a server (none here: SPEC §6b).

namespace sluice::mdb {

// A column as sluice creates it: its name and its definition after the name ("varchar(80)
// CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL", "boolean NOT NULL DEFAULT 0").
struct column_spec {
  std::string name;
  std::string definition;
  friend bool operator==(const column_spec&, const column_spec&) = default;
};

// A table as sluice creates it: key columns (the primary key, in order), then the others; an
// append table (no key) gets its position index with it.
struct table_definition {
  target_table target;
  std::vector<column_spec> key;
  std::vector<column_spec> columns;  // including sluice's metadata columns
  bool position_index = false;       // UNIQUE KEY _sluice_position (meta::position_columns())
};

// CREATE DATABASE IF NOT EXISTS, utf8mb4 with the dialect's NO PAD binary collation (the
// default of tables made in it; sluice's own tables state theirs anyway).
std::string create_database_sql(const std::string& database, sql_dialect dialect = {});
// CREATE TABLE IF NOT EXISTS … ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=<NO PAD binary>.
// (Also on MySQL 8: CREATE TABLE has IF NOT EXISTS there.)
std::string create_table_sql(const table_definition& def, sql_dialect dialect = {});
// ALTER TABLE … ADD COLUMN IF NOT EXISTS c t, … (MariaDB); ADD COLUMN c t, … (MySQL 8: only
// the columns information_schema lacks).
std::string add_columns_sql(const target_table& target, const std::vector<column_spec>& columns,
                            sql_dialect dialect = {});
// ALTER TABLE … MODIFY COLUMN c t, … (auto.evolve.widen): MODIFY restates the whole column, so
// the definition carries its character set, collation and nullability.
std::string widen_columns_sql(const target_table& target, const std::vector<column_spec>& columns);
// The unique index an append writes each source position once by: ALTER TABLE … ADD UNIQUE
// INDEX IF NOT EXISTS `_sluice_position` (…) (MariaDB); CREATE UNIQUE INDEX … (MySQL 8).
// NULL positions are distinct (rows without a Kafka origin are always appended).
std::string position_index_sql(const target_table& target, sql_dialect dialect = {});

}  // namespace sluice::mdb
