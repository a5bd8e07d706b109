#include "sinks/postgres/state/dead_letter_store.h"

#include <pqxx/binarystring>
#include <pqxx/result>

namespace sluice {
namespace {

std::string int_array(const std::vector<int64_t>& ids) {
  std::string out = "{";
  for (size_t i = 0; i < ids.size(); ++i)
    out += (i ? "," : "") + std::to_string(ids[i]);
  return out + "}";
}

}  // namespace

std::optional<std::string> dead_letter_store::ids_param(const std::vector<int64_t>& ids) {
  if (ids.empty()) return std::nullopt;
  return int_array(ids);
}

dead_letter_store::dead_letter_store(const state_schema& schema, std::string connector)
    : _table(schema.table("dead_letters")), _connector(std::move(connector)) {}

namespace {

// The filter as one fixed clause over $1..$9 (unset members are NULL and drop out): values
// always travel as parameters.
constexpr const char* filter_clause =
    " WHERE connector = $1 AND ($2::text IS NULL OR kind = $2)"
    " AND ($3::text IS NULL OR target_schema || '.' || target_table = $3 OR target_table = $3)"
    " AND ($4::text IS NULL OR strpos(lower(reason), lower($4)) > 0)"
    " AND ($5::text IS NULL OR topic = $5)"
    " AND ($6::timestamptz IS NULL OR created_at >= $6)"
    " AND ($7::timestamptz IS NULL OR created_at < $7)"
    " AND ($8::bigint[] IS NULL OR id = ANY($8))"
    " AND ($9::bigint IS NULL OR id <= $9)";

}  // namespace

std::vector<stored_dead_letter> dead_letter_store::select(pqxx::transaction_base& tx,
                                                          const dead_letter_filter& f,
                                                          int64_t after_id, size_t limit) const {
  const pqxx::result r = filtered(
      tx,
      "SELECT id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), "
      "coalesce(kind, ''), coalesce(target_schema || '.' || target_table, ''), reason, topic, "
      "coalesce(partition, 0), coalesce(kafka_offset, -1), "
      "coalesce((extract(epoch FROM kafka_timestamp) * 1000)::bigint, 0), key, value, "
      "coalesce(headers::text, '[]') FROM " +
          _table + filter_clause + " AND id > $10 ORDER BY id LIMIT $11",
      f, after_id, static_cast<int64_t>(limit));
  std::vector<stored_dead_letter> out;
  out.reserve(r.size());
  for (const auto& row : r) {
    stored_dead_letter d;
    d.id = row[0].as<int64_t>();
    d.created_at = row[1].as<std::string>();
    d.kind = row[2].as<std::string>();
    d.target = row[3].as<std::string>();
    d.reason = row[4].as<std::string>();
    if (!row[5].is_null()) d.topic = row[5].as<std::string>();
    d.partition = row[6].as<int32_t>();
    d.offset = row[7].as<int64_t>();
    d.timestamp_ms = row[8].as<int64_t>();
    if (!row[9].is_null()) d.key = pqxx::binarystring(row[9]).str();
    if (!row[10].is_null()) d.value = pqxx::binarystring(row[10]).str();
    d.headers_json = row[11].as<std::string>();
    out.push_back(std::move(d));
  }
  return out;
}

uint64_t dead_letter_store::count(pqxx::transaction_base& tx, const dead_letter_filter& f) const {
  return filtered(tx, "SELECT count(*) FROM " + _table + filter_clause, f)[0][0].as<uint64_t>();
}

int64_t dead_letter_store::last_id(pqxx::transaction_base& tx, const dead_letter_filter& f) const {
  return filtered(tx, "SELECT coalesce(max(id), 0) FROM " + _table + filter_clause, f)[0][0]
      .as<int64_t>();
}

uint64_t dead_letter_store::purge(pqxx::transaction_base& tx, const dead_letter_filter& f) const {
  return filtered(tx, "DELETE FROM " + _table + filter_clause, f).affected_rows();
}

uint64_t dead_letter_store::remove(pqxx::transaction_base& tx,
                                   const std::vector<int64_t>& ids) const {
  if (ids.empty()) return 0;
  dead_letter_filter f;
  f.ids = ids;
  return purge(tx, f);
}

uint64_t dead_letter_store::settle_replayed(pqxx::transaction_base& tx,
                                            const std::vector<int64_t>& replayed,
                                            const std::vector<int64_t>& written) const {
  if (replayed.empty()) return 0;
  if (written.empty()) return remove(tx, replayed);
  // One statement: pair each new letter with a replayed letter of the same message (origin),
  // the n-th with the n-th by id; the replayed one takes the new one's content, the new one
  // goes, and the replayed letters left unpaired (they applied) go.
  // Letters without an origin (a message from no Kafka partition) pair only within their
  // target table (`within`): a letter of one table never takes another table's content.
  const std::string within =
      "CASE WHEN topic IS NULL THEN ROW(target_schema, target_table) END AS within";
  const std::string by_origin =
      "row_number() OVER (PARTITION BY topic, partition, kafka_offset, "
      "CASE WHEN topic IS NULL THEN ROW(target_schema, target_table) END ORDER BY id) AS n";
  const std::string same_origin =
      "o.topic IS NOT DISTINCT FROM w.topic AND o.partition IS NOT DISTINCT FROM w.partition "
      "AND o.kafka_offset IS NOT DISTINCT FROM w.kafka_offset "
      "AND o.within IS NOT DISTINCT FROM w.within AND o.n = w.n";
  const std::string columns = "id, topic, partition, kafka_offset, " + within + ", " + by_origin;
  const pqxx::result r = tx.exec_params(
      "WITH old AS (SELECT " + columns + " FROM " + _table +
          " WHERE connector = $1 AND id = ANY($2::bigint[])), "
          "new AS (SELECT " +
          columns + " FROM " + _table +
          " WHERE connector = $1 AND id = ANY($3::bigint[])), "
          "pairs AS (SELECT o.id AS old_id, w.id AS new_id FROM old o JOIN new w ON " +
          same_origin +
          "), "
          "kept AS (UPDATE " +
          _table +
          " t SET reason = w.reason, kind = w.kind, target_schema = w.target_schema, "
          "target_table = w.target_table, key = w.key, value = w.value, headers = w.headers "
          "FROM pairs p JOIN " +
          _table +
          " w ON w.id = p.new_id WHERE t.id = p.old_id RETURNING t.id) "
          "DELETE FROM " +
          _table +
          " d WHERE d.connector = $1 AND (d.id IN (SELECT new_id FROM pairs) OR "
          "(d.id = ANY($2::bigint[]) AND d.id NOT IN (SELECT old_id FROM pairs))) "
          "RETURNING d.id = ANY($2::bigint[])",
      _connector, int_array(replayed), int_array(written));
  uint64_t gone = 0;
  for (const auto& row : r)
    gone += row[0].as<bool>() ? 1 : 0;
  return gone;
}

}  // namespace sluice
