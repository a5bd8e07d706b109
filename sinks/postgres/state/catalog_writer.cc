#include "sinks/postgres/state/catalog_writer.h"

#include <map>
#include <set>
#include <tuple>

#include <pqxx/binarystring>
#include <pqxx/result>

#include "sinks/plan/json_text.h"
#include "sinks/postgres/sql/pg_array.h"

namespace sluice {
namespace {

void add_csn(pg_array& array, const csn& seq) {
  if (seq.empty()) {
    array.add_null();
  } else {
    array.add_bytea(seq.bytes());
  }
}

csn csn_of(const pqxx::field& f) {
  if (f.is_null()) return {};
  const pqxx::binarystring bytes(f);
  auto seq = csn::from_bytes(std::string_view(bytes.get(), bytes.size()));
  return seq ? *seq : csn{};  // written by write() only: never malformed
}

}  // namespace

catalog_writer::catalog_writer(const state_schema& schema, std::string connector)
    : _catalog(schema.table("catalog")),
      _ddl_history(schema.table("ddl_history")),
      _connector(std::move(connector)) {}

size_t catalog_writer::write(pqxx::transaction_base& tx,
                             const std::vector<catalog_update>& updates) const {
  if (updates.empty()) return 0;
  pg_array databases, schemas, tables, keys, columns, learned, seqs;
  for (const catalog_update* u : newest_per_table(updates)) {
    databases.add(u->table.database);
    schemas.add(u->table.schema);
    tables.add(u->table.table);
    pg_array key;
    for (const std::string& k : u->key_columns)
      key.add(k);
    keys.add(key.take());
    columns.add(catalog_columns_json(u->columns));
    learned.add(u->learned_from);
    add_csn(seqs, u->seq);
  }
  // Newest by CSN when both rows have one, else the last write; an identical row stays as
  // it is (metadata records are sent again and again).
  const pqxx::result r = tx.exec_params(
      "INSERT INTO " + _catalog +
          " AS c (connector, source_database, source_schema, source_table, key_columns, "
          "columns, learned_from, csn) "
          "SELECT $1, d.db, d.sch, d.tbl, CAST(d.keys AS text[]), CAST(d.cols AS jsonb), "
          "d.learned, d.csn FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], "
          "$6::text[], $7::text[], $8::bytea[]) AS d(db, sch, tbl, keys, cols, learned, csn) "
          "ON CONFLICT (connector, source_database, source_schema, source_table) DO UPDATE SET "
          "key_columns = EXCLUDED.key_columns, columns = EXCLUDED.columns, "
          "learned_from = EXCLUDED.learned_from, csn = EXCLUDED.csn, updated_at = now() "
          "WHERE (EXCLUDED.csn IS NULL OR c.csn IS NULL OR EXCLUDED.csn >= c.csn) "
          "AND (c.key_columns, c.columns, c.learned_from, c.csn) IS DISTINCT FROM "
          "(EXCLUDED.key_columns, EXCLUDED.columns, EXCLUDED.learned_from, EXCLUDED.csn)",
      _connector, databases.take(), schemas.take(), tables.take(), keys.take(), columns.take(),
      learned.take(), seqs.take());
  return static_cast<size_t>(r.affected_rows());
}

size_t catalog_writer::record(pqxx::transaction_base& tx,
                              const std::vector<ddl_record>& ddl) const {
  if (ddl.empty()) return 0;
  pg_array tables, statements, seqs, stamps, topics, parts, offsets;
  // A record redelivered within the batch is recorded once (across batches: the NOT EXISTS).
  std::set<std::tuple<std::string, std::string_view, std::string_view>> seen;
  for (const ddl_record& d : ddl) {
    const std::string table = d.table.qualified();
    if (!d.seq.empty() && !seen.emplace(table, d.statement, d.seq.bytes()).second) continue;
    if (table.empty()) {
      tables.add_null();
    } else {
      tables.add(table);
    }
    statements.add(is_storable_text(d.statement) ? d.statement
                                                 : std::string("(statement not UTF-8)"));
    add_csn(seqs, d.seq);
    if (d.source_ts.value() == 0) {
      stamps.add_null();
    } else {
      stamps.add_int(d.source_ts.value() / 1000);
    }
    if (d.origin.topic.empty()) {
      topics.add_null();
      parts.add_null();
      offsets.add_null();
    } else {
      topics.add(d.origin.topic);
      parts.add_int(d.origin.partition.value());
      offsets.add_int(d.origin.offset.value());
    }
  }
  const pqxx::result r = tx.exec_params(
      "INSERT INTO " + _ddl_history +
          " (connector, source_table, statement, csn, source_ts, topic, partition, kafka_offset) "
          "SELECT $1, d.source_table, d.statement, d.csn, "
          "'epoch'::timestamptz + d.ts_us * interval '1 microsecond', d.topic, d.partition, "
          "d.kafka_offset FROM unnest($2::text[], $3::text[], $4::bytea[], $5::bigint[], "
          "$6::text[], $7::int4[], $8::bigint[]) WITH ORDINALITY "
          "AS d(source_table, statement, csn, ts_us, topic, partition, kafka_offset, ord) "
          "WHERE d.csn IS NULL OR NOT EXISTS (SELECT 1 FROM " +
          _ddl_history +
          " h WHERE h.connector = $1 AND h.csn = d.csn AND h.statement = d.statement "
          "AND h.source_table IS NOT DISTINCT FROM d.source_table) ORDER BY d.ord",
      _connector, tables.take(), statements.take(), seqs.take(), stamps.take(), topics.take(),
      parts.take(), offsets.take());
  return static_cast<size_t>(r.affected_rows());
}

std::vector<catalog_update> catalog_writer::load(pqxx::transaction_base& tx) const {
  std::map<table_name, catalog_update> by_table;
  const pqxx::result entries = tx.exec_params(
      "SELECT source_database, source_schema, source_table, key_columns, learned_from, csn "
      "FROM " +
          _catalog + " WHERE connector = $1",
      _connector);
  for (const pqxx::row& row : entries) {
    catalog_update u;
    u.table =
        table_name{row[0].as<std::string>(), row[1].as<std::string>(), row[2].as<std::string>()};
    if (!row[3].is_null()) {
      pqxx::array_parser keys = row[3].as_array();
      for (auto next = keys.get_next(); next.first != pqxx::array_parser::juncture::done;
           next = keys.get_next()) {
        if (next.first == pqxx::array_parser::juncture::string_value) {
          u.key_columns.push_back(std::move(next.second));
        }
      }
    }
    u.learned_from = row[4].is_null() ? std::string() : row[4].as<std::string>();
    u.seq = csn_of(row[5]);
    by_table.emplace(u.table, std::move(u));
  }
  const pqxx::result columns = tx.exec_params(
      "SELECT c.source_database, c.source_schema, c.source_table, e.value->>'name', "
      "coalesce(e.value->>'type', ''), e.value->>'class', e.value->>'nullable', "
      "e.value->>'key', e.value->>'portable_type' FROM " +
          _catalog +
          " c CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(c.columns) = "
          "'array' THEN c.columns ELSE '[]'::jsonb END) WITH ORDINALITY AS e(value, ord) "
          "WHERE c.connector = $1 AND e.value->>'name' IS NOT NULL "
          "ORDER BY c.source_database, c.source_schema, c.source_table, e.ord",
      _connector);
  for (const pqxx::row& row : columns) {
    auto it = by_table.find(
        table_name{row[0].as<std::string>(), row[1].as<std::string>(), row[2].as<std::string>()});
    if (it == by_table.end()) continue;
    column_info c;
    c.name = row[3].as<std::string>();
    c.source_type = row[4].as<std::string>();
    c.cls =
        row[5].is_null() ? column_class::unknown : stored_column_class(row[5].as<std::string>());
    c.nullable = row[6].is_null() || row[6].as<std::string>() != "false";
    c.key = !row[7].is_null() && row[7].as<std::string>() == "true";
    // Rows stored before portable types have none: unknown here, and the table catalog
    // derives it from source_type when it learns the shape (goldengate learn_shape).
    c.type = stored_portable_type(
        row[8].is_null() ? std::nullopt : std::optional(std::string_view(row[8].c_str())));
    it->second.columns.push_back(std::move(c));
  }
  std::vector<catalog_update> out;
  out.reserve(by_table.size());
  for (auto& [_, u] : by_table)
    out.push_back(std::move(u));
  return out;
}

}  // namespace sluice
