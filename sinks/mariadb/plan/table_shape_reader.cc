#include "sinks/mariadb/plan/table_shape_reader.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "sinks/mariadb/sql/meta_columns.h"

namespace sluice::mdb {
namespace {

// The WHERE clause picking the tables (`s` and `t` name the schema and table columns) and its
// parameters. One database — the usual case — is one equality on the schema, which lets
// MariaDB open that database's tables only.
std::string table_filter(const std::vector<target_table>& tables, const std::string& s,
                         const std::string& t, std::vector<param>& params) {
  const bool one_schema = std::all_of(tables.begin(), tables.end(), [&](const target_table& x) {
    return x.schema == tables.front().schema;
  });
  std::string out;
  if (one_schema) {
    params.push_back(param::text(tables.front().schema));
    out = s + " = ? AND " + t + " IN (";
    for (size_t i = 0; i < tables.size(); ++i) {
      out += i == 0 ? "?" : ", ?";
      params.push_back(param::text(tables[i].name));
    }
    return out + ")";
  }
  for (const target_table& x : tables) {
    out += (out.empty() ? "(" : " OR (") + s + " = ? AND " + t + " = ?)";
    params.push_back(param::text(x.schema));
    params.push_back(param::text(x.name));
  }
  return "(" + out + ")";
}

}  // namespace

namespace {

// information_schema skips a table whose definition a concurrent DDL is changing, with only a
// warning (1684): its columns or its primary key would read as missing, and a keyed batch
// would be refused as "no primary key". Such a read is an error to retry, never a shape.
void refuse_skipped_tables(connection& conn) {
  for (const auto& row : conn.query("SHOW WARNINGS").rows) {
    if (row.size() > 2 && row[1] == "1684") {
      throw mdb_error(1684, "HY000", row[2].value_or("a table was skipped by concurrent DDL"));
    }
  }
}

}  // namespace

shape_queries table_shape_queries(const std::vector<target_table>& tables, sql_dialect d) {
  shape_queries q;
  // MariaDB's json is a longtext with a column check json_valid(`name`) named after it. The
  // checks are read apart, not as an EXISTS per column: that subquery materializes
  // information_schema.check_constraints once per row, and MariaDB 10.11.19 died there
  // (signal 11 in ha_maria::drop_table, under Item_exists_subselect → get_all_tables →
  // create_tmp_table_for_schema → cleanup_on_failure) while a concurrent session ran DDL.
  // Each filter first: it fills params, which the query then binds.
  if (!d.mysql) {
    shape_query& checks = q.checks.emplace();
    const std::string filter =
        table_filter(tables, "constraint_schema", "table_name", checks.params);
    checks.sql =
        "SELECT constraint_schema, table_name, constraint_name, check_clause "
        "FROM information_schema.check_constraints WHERE level = 'Column' AND " +
        filter;
  }
  std::string filter = table_filter(tables, "c.table_schema", "c.table_name", q.columns.params);
  q.columns.sql = (d.mysql ? "SELECT c.table_schema AS table_schema, c.table_name AS table_name, "
                             "c.column_name AS column_name, c.column_type AS column_type, "
                             "c.collation_name AS collation_name, c.is_nullable AS is_nullable"
                           : "SELECT c.table_schema, c.table_name, c.column_name, c.column_type, "
                             "c.collation_name, c.is_nullable") +
                  std::string(
                      " FROM information_schema.columns c JOIN information_schema.tables b "
                      "ON b.table_schema = c.table_schema AND b.table_name = c.table_name "
                      "AND b.table_type = 'BASE TABLE' WHERE ") +
                  filter + " ORDER BY c.table_schema, c.table_name, c.ordinal_position";
  filter = table_filter(tables, "table_schema", "table_name", q.indexes.params);
  q.indexes.sql =
      (d.mysql ? "SELECT table_schema AS table_schema, table_name AS table_name, "
                 "index_name AS index_name, column_name AS column_name, sub_part AS sub_part"
               : "SELECT table_schema, table_name, index_name, column_name, sub_part") +
      std::string(" FROM information_schema.statistics WHERE non_unique = 0 AND ") + filter +
      " ORDER BY table_schema, table_name, index_name, seq_in_index";
  return q;
}

std::vector<table_shape> read_table_shapes(connection& conn,
                                           const std::vector<target_table>& tables,
                                           sql_dialect dialect) {
  std::vector<table_shape> shapes(tables.size());
  if (tables.empty()) return shapes;
  std::map<target_table, size_t> index;
  for (size_t i = 0; i < tables.size(); ++i)
    index.emplace(tables[i], i);
  const auto shape_of = [&](const std::optional<std::string>& s,
                            const std::optional<std::string>& t) -> table_shape* {
    auto it = index.find(target_table{s.value_or(""), t.value_or("")});
    return it == index.end() ? nullptr : &shapes[it->second];
  };
  const shape_queries q = table_shape_queries(tables, dialect);
  const auto read = [&](const shape_query& one) {
    result r = conn.query(one.sql, one.params);
    if (!dialect.mysql) refuse_skipped_tables(conn);
    return r;
  };

  const result checks = q.checks ? read(*q.checks) : result{};
  std::set<std::tuple<std::string, std::string, std::string>> json_checked;
  for (const auto& row : checks.rows) {
    const std::string column = row[2].value_or("");
    if (row[3] == "json_valid(`" + column + "`)")
      json_checked.emplace(row[0].value_or(""), row[1].value_or(""), column);
  }

  const result columns = read(q.columns);
  for (const auto& row : columns.rows) {
    table_shape* shape = shape_of(row[0], row[1]);
    if (!shape) continue;
    shape->exists = true;
    column_def c;
    c.name = row[2].value_or("");
    const bool json = row[3] == "longtext" &&
                      json_checked.contains({row[0].value_or(""), row[1].value_or(""), c.name});
    c.type = json ? "json" : row[3].value_or("");
    c.collation = row[4].value_or("");
    c.nullable = row[5] == "YES";
    shape->columns.push_back(std::move(c));
  }

  const result indexes = read(q.indexes);
  // Per table, each unique index's columns (the rows come in index order).
  std::map<size_t, std::map<std::string, std::vector<std::string>>> unique;
  for (const auto& row : indexes.rows) {
    table_shape* shape = shape_of(row[0], row[1]);
    if (!shape || !shape->exists) continue;
    const std::string name = row[2].value_or(""), column = row[3].value_or("");
    unique[size_t(shape - shapes.data())][name].push_back(column);
    if (name != "PRIMARY") continue;
    shape->primary_key.push_back(column);
    if (row[4]) shape->prefixed_key.push_back(column);
  }
  std::vector<std::string> position = meta::position_columns();
  for (auto& [i, by_name] : unique) {
    for (auto& [_, cols] : by_name) {
      std::sort(cols.begin(), cols.end());
      if (cols == position) shapes[i].position_index = true;
    }
  }
  return shapes;
}

table_shape read_table_shape(connection& conn, const target_table& table, sql_dialect dialect) {
  return read_table_shapes(conn, {table}, dialect).front();
}

}  // namespace sluice::mdb
