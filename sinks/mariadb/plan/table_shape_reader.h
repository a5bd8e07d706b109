#pragma once

#include <vector>

#include "core/catalog/table_router.h"
#include "sinks/mariadb/session/mdb_connection.h"
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
std::vector<table_shape> read_table_shapes(connection& conn,
                                           const std::vector<target_table>& tables);
table_shape read_table_shape(connection& conn, const target_table& table);

}  // namespace sluice::mdb
