#include "sinks/mariadb/state/replay_settlement.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_set>

namespace sluice::mdb {
namespace {

// Where a letter came from: its message, or (no message) its target table.
using origin =
    std::tuple<std::optional<std::string>, std::optional<std::string>, std::optional<std::string>,
               std::optional<std::string>, std::optional<std::string>>;

// "?, ?, …": n placeholders.
std::string placeholders(size_t n) {
  std::string s = "?";
  for (size_t i = 1; i < n; ++i)
    s += ", ?";
  return s;
}

}  // namespace

replay_settlement::replay_settlement(const state_schema& schema, std::string connector,
                                     size_t ids_per_read)
    : _table(schema.table("dead_letters")),
      _connector(std::move(connector)),
      _ids_per_read(std::max<size_t>(1, ids_per_read)) {}

uint64_t replay_settlement::settle(connection& conn, const std::vector<int64_t>& replayed,
                                   const std::vector<int64_t>& written) const {
  if (replayed.empty()) return 0;
  std::vector<std::string> numbers;
  numbers.reserve(replayed.size() + written.size());
  for (int64_t id : replayed)
    numbers.push_back(std::to_string(id));
  for (int64_t id : written)
    numbers.push_back(std::to_string(id));
  // The letters' origins, in id order (by id within a read, and the reads' rows sorted after).
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (size_t from = 0; from < numbers.size(); from += _ids_per_read) {
    const size_t n = std::min(_ids_per_read, numbers.size() - from);
    std::vector<param> params{param::text(_connector)};
    for (size_t i = from; i < from + n; ++i)
      params.push_back(param::text(numbers[i]));
    result r = conn.query(
        "SELECT id, topic, `partition`, kafka_offset, target_schema, target_table FROM " + _table +
            " WHERE connector = ? AND id IN (" + placeholders(n) + ")",
        params);
    for (auto& row : r.rows)
      rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::stoll(*a.at(0)) < std::stoll(*b.at(0));
  });

  // Per origin, the replayed letters still there and the new ones, each in id order.
  const std::unordered_set<int64_t> was_replayed(replayed.begin(), replayed.end());
  std::map<origin, std::pair<std::deque<std::string>, std::deque<std::string>>> by_origin;
  for (const auto& row : rows) {
    const bool from_message = row.at(1).has_value();
    const origin o{row.at(1), row.at(2), row.at(3), from_message ? std::nullopt : row.at(4),
                   from_message ? std::nullopt : row.at(5)};
    auto& [old_ids, new_ids] = by_origin[o];
    (was_replayed.count(std::stoll(*row.at(0))) ? old_ids : new_ids).push_back(*row.at(0));
  }
  std::vector<std::string> pairs;  // new id, old id, …
  std::vector<std::string> gone;   // new ids paired, then the replayed ones left (they applied)
  uint64_t applied = 0;
  for (auto& [o, ids] : by_origin) {
    auto& [old_ids, new_ids] = ids;
    while (!old_ids.empty() && !new_ids.empty()) {
      pairs.push_back(new_ids.front());
      pairs.push_back(old_ids.front());
      gone.push_back(new_ids.front());
      old_ids.pop_front();
      new_ids.pop_front();
    }
    for (const std::string& id : old_ids) {
      gone.push_back(id);
      ++applied;
    }
  }
  if (!pairs.empty()) {
    std::vector<param> cells;
    cells.reserve(pairs.size());
    for (const std::string& id : pairs)
      cells.push_back(param::text(id));
    conn.exec_bulk("UPDATE " + _table + " AS o JOIN " + _table +
                       " AS w ON w.id = ? SET o.reason = w.reason, o.kind = w.kind, "
                       "o.target_schema = w.target_schema, o.target_table = w.target_table, "
                       "o.`key` = w.`key`, o.value = w.value, o.headers = w.headers "
                       "WHERE o.id = ?",
                   2, cells);
  }
  if (!gone.empty()) {
    std::vector<param> cells;
    cells.reserve(gone.size());
    for (const std::string& id : gone)
      cells.push_back(param::text(id));
    conn.exec_bulk("DELETE FROM " + _table + " WHERE id = ?", 1, cells);
  }
  return applied;
}

}  // namespace sluice::mdb
