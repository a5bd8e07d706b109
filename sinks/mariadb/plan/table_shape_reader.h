#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/catalog/table_router.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/sql/sql_dialect.h"
#include "sinks/mariadb/sql/table_shape.h"

namespace sluice::mdb {

// Reads target tables' shapes from information_schema (the model:
// postgres/plan/table_shape_reader.h): columns with their column_type, collation and
// nullability (a json column — MariaDB's alias of longtext with a json_valid check — reads
// "json"), the primary key in key order with any prefix-only parts, and whether the append
// position index is there. Only base tables: a view of that name reads exists = false.
//
// Two round trips however many tables (columns, then unique indexes). information_schema
// compares names case-insensitively: rows are matched to the targets byte for byte here, so
// `Orders` never reads as `orders`. Threading: none of its own; any connection, in a
// transaction or not (it does not see another transaction's uncommitted DDL: there is none,
// DDL commits at once).
//
// MySQL 8 (sql_dialect::mysql; the text is unit-tested, never run here): json is a type of its
// own (column_type reads "json"), so there is no check query — its check_constraints has
// neither `level` nor `table_name`; the other columns are named in lower case (MySQL 8's
// information_schema names them in upper case); and no SHOW WARNINGS after each read (its
// transactional data dictionary never skips a table under concurrent DDL: no 1684).
std::vector<table_shape> read_table_shapes(connection& conn,
                                           const std::vector<target_table>& tables,
                                           sql_dialect dialect = sql_dialect::mariadb());
table_shape read_table_shape(connection& conn, const target_table& table,
                             sql_dialect dialect = sql_dialect::mariadb());

// The reads above, in order, with their parameters (which view the tables' names).
struct shape_query {
  std::string sql;
  std::vector<param> params;
};
struct shape_queries {
  std::optional<shape_query> checks;  // MariaDB's json checks; none on MySQL
  shape_query columns;                // schema, table, column, type, collation, nullable
  shape_query indexes;                // schema, table, index, column, prefix length
};
shape_queries table_shape_queries(const std::vector<target_table>& tables, sql_dialect dialect);

}  // namespace sluice::mdb
