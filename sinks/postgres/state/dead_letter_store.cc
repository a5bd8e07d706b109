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

}  // namespace sluice
