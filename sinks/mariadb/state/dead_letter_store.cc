#include "sinks/mariadb/state/dead_letter_store.h"

#include <chrono>
#include <thread>

#include "sinks/plan/digest.h"

namespace sluice::mdb {
namespace {

constexpr size_t max_lock_name = 64;
constexpr const char* canonical_time = "STR_TO_DATE(?, '%Y-%m-%dT%H:%i:%s.%fZ')";

}  // namespace

dead_letter_store::dead_letter_store(const state_schema& schema, std::string connector)
    : _table(schema.table("dead_letters")), _connector(std::move(connector)) {
  _lock = "sluice_replay:" + schema.name() + ":" + _connector;
  if (_lock.size() > max_lock_name) {
    _lock = "sluice_replay:" + sha256_hex(schema.name() + ":" + _connector).substr(0, 48);
  }
}

std::string dead_letter_store::where(const dead_letter_filter& f, std::vector<param>& params,
                                     std::vector<std::string>& numbers) const {
  // Every number as text, kept in place before any param points at it.
  numbers.clear();
  numbers.reserve(f.ids.size() + 1);
  for (int64_t id : f.ids)
    numbers.push_back(std::to_string(id));
  if (f.up_to_id) numbers.push_back(std::to_string(*f.up_to_id));
  std::string sql = " WHERE connector = ?";
  params.push_back(param::text(_connector));
  if (f.kind) {
    sql += " AND kind = ?";
    params.push_back(param::text(*f.kind));
  }
  if (f.table) {
    sql += " AND (CONCAT(target_schema, '.', target_table) = ? OR target_table = ?)";
    params.push_back(param::text(*f.table));
    params.push_back(param::text(*f.table));
  }
  if (f.reason) {
    sql += " AND LOCATE(LOWER(?), LOWER(reason)) > 0";
    params.push_back(param::text(*f.reason));
  }
  if (f.topic) {
    sql += " AND topic = ?";
    params.push_back(param::text(*f.topic));
  }
  if (f.since) {
    sql += std::string(" AND created_at >= ") + canonical_time;
    params.push_back(param::text(*f.since));
  }
  if (f.until) {
    sql += std::string(" AND created_at < ") + canonical_time;
    params.push_back(param::text(*f.until));
  }
  if (!f.ids.empty()) {
    sql += " AND id IN (";
    for (size_t i = 0; i < f.ids.size(); ++i) {
      sql += i ? ", CAST(? AS SIGNED)" : "CAST(? AS SIGNED)";
      params.push_back(param::text(numbers[i]));
    }
    sql += ")";
  }
  if (f.up_to_id) {
    sql += " AND id <= CAST(? AS SIGNED)";
    params.push_back(param::text(numbers.back()));
  }
  return sql;
}

std::vector<stored_dead_letter> dead_letter_store::select(connection& conn,
                                                          const dead_letter_filter& f,
                                                          int64_t after_id, size_t limit) const {
  std::vector<param> params;
  std::vector<std::string> numbers;
  std::string sql =
      "SELECT id, CONCAT(LEFT(DATE_FORMAT(created_at, '%Y-%m-%dT%H:%i:%s.%f'), 23), 'Z'), "
      "coalesce(kind, ''), coalesce(CONCAT(target_schema, '.', target_table), ''), reason, "
      "topic, coalesce(`partition`, 0), coalesce(kafka_offset, -1), "
      "coalesce(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', kafka_timestamp) DIV 1000, 0), "
      "`key`, value, coalesce(headers, '[]') FROM " +
      _table + where(f, params, numbers) + " AND id > CAST(? AS SIGNED) ORDER BY id LIMIT " +
      std::to_string(limit);
  const std::string after = std::to_string(after_id);
  params.push_back(param::text(after));
  const result r = conn.query(sql, params);
  std::vector<stored_dead_letter> out;
  out.reserve(r.size());
  for (const auto& row : r.rows) {
    stored_dead_letter d;
    d.id = std::stoll(*row.at(0));
    d.created_at = *row.at(1);
    d.kind = *row.at(2);
    d.target = *row.at(3);
    d.reason = *row.at(4);
    d.topic = row.at(5);
    d.partition = std::stoi(*row.at(6));
    d.offset = std::stoll(*row.at(7));
    d.timestamp_ms = std::stoll(*row.at(8));
    d.key = row.at(9);
    d.value = row.at(10);
    d.headers_json = *row.at(11);
    out.push_back(std::move(d));
  }
  return out;
}

uint64_t dead_letter_store::count(connection& conn, const dead_letter_filter& f) const {
  std::vector<param> params;
  std::vector<std::string> numbers;
  const std::string sql = "SELECT count(*) FROM " + _table + where(f, params, numbers);
  return std::stoull(*conn.query(sql, params).at(0, 0));
}

int64_t dead_letter_store::last_id(connection& conn, const dead_letter_filter& f) const {
  std::vector<param> params;
  std::vector<std::string> numbers;
  const std::string sql = "SELECT coalesce(max(id), 0) FROM " + _table + where(f, params, numbers);
  return std::stoll(*conn.query(sql, params).at(0, 0));
}

uint64_t dead_letter_store::purge(connection& conn, const dead_letter_filter& f) const {
  std::vector<param> params;
  std::vector<std::string> numbers;
  const std::string sql = "DELETE FROM " + _table + where(f, params, numbers);
  return conn.exec(sql, params);
}

uint64_t dead_letter_store::remove(connection& conn, const std::vector<int64_t>& ids) const {
  if (ids.empty()) return 0;
  dead_letter_filter f;
  f.ids = ids;
  return purge(conn, f);
}

bool dead_letter_store::try_replay_turn(connection& conn) const {
  const result r = conn.query("SELECT GET_LOCK(?, 0)", std::vector{param::text(_lock)});
  return !r.empty() && r.at(0, 0) == "1";
}

void dead_letter_store::take_replay_turn(connection& conn,
                                         const std::function<void()>& waiting) const {
  bool told = false;
  while (!try_replay_turn(conn)) {
    if (!told && waiting) waiting();
    told = true;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

void dead_letter_store::release_replay_turn(connection& conn) const {
  conn.query("SELECT RELEASE_LOCK(?)", std::vector{param::text(_lock)});
}

}  // namespace sluice::mdb
