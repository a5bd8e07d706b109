#include "sinks/mariadb/state/catalog_writer.h"

#include <map>
#include <set>
#include <tuple>

#include "core/model/json_text.h"
#include "sinks/mariadb/state/state_sql.h"
#include "sinks/plan/json_text.h"

namespace sluice::mdb {
namespace {

param csn_param(const csn& seq) {
  return seq.empty() ? param::null() : param::bytes(seq.bytes());
}

csn csn_of(const std::optional<std::string>& bytes) {
  if (!bytes) return {};
  auto seq = csn::from_bytes(*bytes);
  return seq ? *seq : csn{};  // written by write() only: never malformed
}

std::string json_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& s : items) {
    if (out.size() > 1) out += ", ";
    append_json_string(out, s);
  }
  return out + "]";
}

}  // namespace

catalog_writer::catalog_writer(const state_schema& schema, std::string connector,
                               sql_dialect dialect)
    : _catalog(schema.table("catalog")),
      _ddl_history(schema.table("ddl_history")),
      _connector(std::move(connector)),
      _dialect(dialect) {}

size_t catalog_writer::write(connection& conn, const std::vector<catalog_update>& updates) const {
  if (updates.empty()) return 0;
  const std::vector<const catalog_update*> newest = newest_per_table(updates);  // name order
  std::vector<std::string> keys, columns;
  keys.reserve(newest.size());
  columns.reserve(newest.size());
  for (const catalog_update* u : newest) {
    keys.push_back(json_array(u->key_columns));
    columns.push_back(catalog_columns_json(u->columns));
  }
  std::vector<param> cells;
  for (size_t i = 0; i < newest.size(); ++i) {
    const catalog_update& u = *newest[i];
    cells.push_back(param::text(_connector));
    cells.push_back(param::text(u.table.database));
    cells.push_back(param::text(u.table.schema));
    cells.push_back(param::text(u.table.table));
    cells.push_back(param::text(keys[i]));
    cells.push_back(param::text(columns[i]));
    cells.push_back(param::text(u.learned_from));
    cells.push_back(csn_param(u.seq));
  }
  conn.exec_bulk(catalog_upsert_sql(_catalog, _dialect), 8, cells);
  return newest.size();
}

size_t catalog_writer::record(connection& conn, const std::vector<ddl_record>& ddl) const {
  if (ddl.empty()) return 0;
  // A record redelivered within the batch is recorded once (across batches: the NOT EXISTS).
  std::set<std::tuple<std::string, std::string_view, std::string_view>> seen;
  struct row {
    std::optional<std::string> table;
    std::string statement;
    const csn* seq;
    std::optional<std::string> ts_us, topic, partition, offset;
  };
  std::vector<row> rows;
  for (const ddl_record& d : ddl) {
    const std::string table = d.table.qualified();
    if (!d.seq.empty() && !seen.emplace(table, d.statement, d.seq.bytes()).second) continue;
    row r;
    if (!table.empty()) r.table = table;
    r.statement = is_storable_text(d.statement) ? d.statement : "(statement not UTF-8)";
    r.seq = &d.seq;
    const int64_t us = d.source_ts.value() / 1000;
    if (us != 0 && us > 0 && us < 253'402'300'800'000'000) r.ts_us = std::to_string(us);
    if (!d.origin.topic.empty()) {
      r.topic = d.origin.topic;
      r.partition = std::to_string(d.origin.partition.value());
      r.offset = std::to_string(d.origin.offset.value());
    }
    rows.push_back(std::move(r));
  }
  // Those recorded by an earlier batch (same CSN, statement and table) are left out: read
  // first, since an array-bound statement cannot be an INSERT … SELECT.
  std::vector<const row*> fresh;
  {
    std::string sql = "SELECT csn, statement, source_table FROM " + _ddl_history +
                      " WHERE connector = ? AND csn IN (";
    std::vector<param> params{param::text(_connector)};
    for (const row& r : rows) {
      if (r.seq->empty()) continue;
      sql += params.size() > 1 ? ", ?" : "?";
      params.push_back(param::bytes(r.seq->bytes()));
    }
    std::set<std::tuple<std::string, std::string, std::optional<std::string>>> recorded;
    if (params.size() > 1) {
      for (const auto& got : conn.query(sql + ")", params).rows)
        recorded.emplace(*got.at(0), *got.at(1), got.at(2));
    }
    for (const row& r : rows) {
      if (r.seq->empty() ||
          !recorded.contains({std::string(r.seq->bytes()), r.statement, r.table})) {
        fresh.push_back(&r);
      }
    }
  }
  if (fresh.empty()) return 0;
  const auto opt = [](const std::optional<std::string>& s) {
    return s ? param::text(*s) : param::null();
  };
  std::vector<param> cells;
  for (const row* r : fresh) {
    cells.push_back(param::text(_connector));
    cells.push_back(opt(r->table));
    cells.push_back(param::text(r->statement));
    cells.push_back(csn_param(*r->seq));
    cells.push_back(opt(r->ts_us));
    cells.push_back(opt(r->topic));
    cells.push_back(opt(r->partition));
    cells.push_back(opt(r->offset));
  }
  return static_cast<size_t>(conn.exec_bulk(
      "INSERT INTO " + _ddl_history +
          " (connector, source_table, statement, csn, source_ts, topic, `partition`, "
          "kafka_offset, recorded_at) VALUES (?, ?, ?, ?, TIMESTAMPADD(MICROSECOND, "
          "CAST(? AS SIGNED), '1970-01-01 00:00:00'), ?, ?, ?, UTC_TIMESTAMP(6))",
      8, cells));
}

std::vector<catalog_update> catalog_writer::load(connection& conn) const {
  std::map<table_name, catalog_update> by_table;
  const std::vector<param> me{param::text(_connector)};
  const result entries =
      conn.query("SELECT source_database, source_schema, source_table, learned_from, csn FROM " +
                     _catalog + " WHERE connector = ?",
                 me);
  for (const auto& row : entries.rows) {
    catalog_update u;
    u.table = table_name{*row.at(0), *row.at(1), *row.at(2)};
    u.learned_from = row.at(3).value_or("");
    u.seq = csn_of(row.at(4));
    by_table.emplace(u.table, std::move(u));
  }
  const result keys = conn.query(
      "SELECT c.source_database, c.source_schema, c.source_table, k.name FROM " + _catalog +
          " c, JSON_TABLE(IF(JSON_TYPE(c.key_columns) = 'ARRAY', c.key_columns, '[]'), '$[*]' "
          "COLUMNS (n FOR ORDINALITY, name text PATH '$')) k WHERE c.connector = ? "
          "AND k.name IS NOT NULL ORDER BY c.source_database, c.source_schema, c.source_table, "
          "k.n",
      me);
  for (const auto& row : keys.rows) {
    auto it = by_table.find(table_name{*row.at(0), *row.at(1), *row.at(2)});
    if (it != by_table.end()) it->second.key_columns.push_back(*row.at(3));
  }
  const result columns = conn.query(
      "SELECT c.source_database, c.source_schema, c.source_table, e.name, "
      "coalesce(e.type, ''), e.class, JSON_EXTRACT(e.item, '$.nullable'), "
      "JSON_EXTRACT(e.item, '$.key'), e.portable_type FROM " +
          _catalog +
          " c, JSON_TABLE(IF(JSON_TYPE(c.columns) = 'ARRAY', c.columns, '[]'), '$[*]' COLUMNS "
          "(n FOR ORDINALITY, item json PATH '$', name text PATH '$.name', type text PATH "
          "'$.type', class text PATH '$.class', portable_type text PATH '$.portable_type')) e "
          "WHERE c.connector = ? AND e.name IS NOT NULL "
          "ORDER BY c.source_database, c.source_schema, c.source_table, e.n",
      me);
  for (const auto& row : columns.rows) {
    auto it = by_table.find(table_name{*row.at(0), *row.at(1), *row.at(2)});
    if (it == by_table.end()) continue;
    column_info c;
    c.name = *row.at(3);
    c.source_type = *row.at(4);
    c.cls = row.at(5) ? stored_column_class(*row.at(5)) : column_class::unknown;
    c.nullable = !row.at(6) || *row.at(6) != "false";
    c.key = row.at(7) && *row.at(7) == "true";
    // Rows stored before portable types have none: unknown here (the table catalog derives
    // it from source_type when it learns the shape).
    c.type = stored_portable_type(row.at(8) ? std::optional<std::string_view>(*row.at(8))
                                            : std::nullopt);
    it->second.columns.push_back(std::move(c));
  }
  std::vector<catalog_update> out;
  out.reserve(by_table.size());
  for (auto& [_, u] : by_table)
    out.push_back(std::move(u));
  return out;
}

}  // namespace sluice::mdb
