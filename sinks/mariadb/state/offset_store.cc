#include "sinks/mariadb/state/offset_store.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "sinks/mariadb/sql/upsert_alias.h"
#include "sinks/mariadb/state/state_sql.h"

namespace sluice::mdb {
namespace {

std::string label(const std::string& topic, int32_t partition) {
  return topic + "[" + std::to_string(partition) + "]";
}

constexpr const char* columns =
    "topic, `partition`, next_offset, owner_epoch, "
    "DATE_FORMAT(updated_at, '%Y-%m-%d %H:%i:%s.%f')";

std::vector<stored_offset> rows_to_offsets(const result& r) {
  std::vector<stored_offset> out;
  out.reserve(r.size());
  for (const auto& row : r.rows) {
    stored_offset o;
    o.topic = *row.at(0);
    o.partition = partition_id(std::stoi(*row.at(1)));
    if (row.at(2)) o.next = kafka_offset(std::stoll(*row.at(2)));
    o.epoch = owner_epoch(std::stoll(*row.at(3)));
    o.updated_at = row.at(4).value_or("");
    out.push_back(std::move(o));
  }
  return out;
}

void sort_keys(std::vector<offset_key>& keys) {
  std::sort(keys.begin(), keys.end(), [](const offset_key& a, const offset_key& b) {
    return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
  });
  keys.erase(std::unique(keys.begin(), keys.end(),
                         [](const offset_key& a, const offset_key& b) {
                           return a.topic == b.topic && a.partition == b.partition;
                         }),
             keys.end());
}

}  // namespace

offset_store::offset_store(const state_schema& schema, std::string connector, sql_dialect dialect)
    : _table(schema.table("offsets")), _connector(std::move(connector)), _dialect(dialect) {}

std::vector<claimed_partition> offset_store::claim(connection& conn, const std::string& topic,
                                                   std::vector<partition_id> partitions) const {
  std::sort(partitions.begin(), partitions.end());
  partitions.erase(std::unique(partitions.begin(), partitions.end()), partitions.end());
  if (partitions.empty()) return {};
  std::vector<std::string> numbers;
  numbers.reserve(partitions.size());
  for (partition_id p : partitions)
    numbers.push_back(std::to_string(p.value()));
  std::vector<param> cells;
  cells.reserve(partitions.size() * 3);
  for (const std::string& n : numbers) {
    cells.push_back(param::text(_connector));
    cells.push_back(param::text(topic));
    cells.push_back(param::text(n));
  }
  // Rows are locked in partition order, like every writer of this table.
  conn.exec_bulk("INSERT INTO " + _table +
                     " (connector, topic, `partition`, next_offset, owner_epoch, updated_at) "
                     "VALUES (?, ?, ?, NULL, 1, UTC_TIMESTAMP(6)) ON DUPLICATE KEY UPDATE "
                     "owner_epoch = owner_epoch + 1, updated_at = UTC_TIMESTAMP(6)",
                 3, cells);
  std::vector<offset_key> keys;
  for (partition_id p : partitions)
    keys.push_back({topic, p});
  std::vector<claimed_partition> out;
  for (stored_offset& o : read_keys(conn, std::move(keys), false)) {
    claimed_partition c;
    c.partition = o.partition;
    c.epoch = o.epoch;
    c.next = o.next;
    out.push_back(c);
  }
  return out;
}

std::vector<std::string> offset_store::advance(
    connection& conn, const std::vector<partition_progress>& progress) const {
  if (progress.empty()) return {};
  std::vector<const partition_progress*> sorted;
  for (const partition_progress& p : progress)
    sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return std::tie(a->topic, a->partition) < std::tie(b->topic, b->partition);
  });
  // The numbers as text, kept alive while the cells point at them.
  std::vector<std::string> text;
  text.reserve(sorted.size() * 4);
  std::vector<param> cells;
  cells.reserve(sorted.size() * 7);
  for (const partition_progress* p : sorted) {
    const size_t at = text.size();
    text.push_back(std::to_string(p->next.value()));
    text.push_back(std::to_string(p->partition.value()));
    text.push_back(std::to_string(p->epoch.value()));
    text.push_back(std::to_string(p->expected.value()));
    cells.push_back(param::text(text[at]));
    cells.push_back(param::text(text[at]));
    cells.push_back(param::text(_connector));
    cells.push_back(param::text(p->topic));
    cells.push_back(param::text(text[at + 1]));
    cells.push_back(param::text(text[at + 2]));
    // -1: claimed, nothing committed yet (next_offset NULL).
    cells.push_back(p->expected.value() < 0 ? param::null() : param::text(text[at + 3]));
  }
  // Matched rows, not changed ones (CLIENT_FOUND_ROWS): a rewrite to the same offset counts.
  // updated_at is when the offset last moved (assignments run left to right: it goes first),
  // so such a rewrite changes nothing at all.
  const uint64_t matched = conn.exec_bulk(
      "UPDATE " + _table +
          " SET updated_at = IF(next_offset <=> CAST(? AS SIGNED), updated_at, "
          "UTC_TIMESTAMP(6)), next_offset = CAST(? AS SIGNED) "
          "WHERE connector = ? AND topic = ? AND `partition` = CAST(? AS SIGNED) "
          "AND owner_epoch = CAST(? AS SIGNED) AND next_offset <=> CAST(? AS SIGNED)",
      7, cells);
  if (matched == sorted.size()) return {};
  // Some did not move: read back which (this transaction sees its own writes).
  std::vector<offset_key> keys;
  for (const partition_progress* p : sorted)
    keys.push_back({p->topic, p->partition});
  const std::vector<stored_offset> stored = read_keys(conn, std::move(keys), false);
  std::vector<std::string> stale;
  for (const partition_progress* p : sorted) {
    auto it = std::find_if(stored.begin(), stored.end(), [&](const stored_offset& s) {
      return s.topic == p->topic && s.partition == p->partition;
    });
    const bool moved =
        it != stored.end() && it->epoch == p->epoch && it->next && *it->next == p->next;
    if (!moved) stale.push_back(label(p->topic, p->partition.value()));
  }
  // A row can read as moved without having matched only if another writer of the same epoch
  // moved it there: say the batch is fenced all the same.
  if (stale.empty()) {
    for (const partition_progress* p : sorted)
      stale.push_back(label(p->topic, p->partition.value()));
  }
  return stale;
}

std::vector<stored_offset> offset_store::reset(connection& conn,
                                               const std::vector<offset_target>& targets) const {
  if (targets.empty()) return {};
  std::vector<offset_target> sorted = targets;
  std::sort(sorted.begin(), sorted.end(), [](const offset_target& a, const offset_target& b) {
    return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
  });
  std::vector<std::string> text;
  text.reserve(sorted.size() * 2);
  std::vector<param> cells;
  for (const offset_target& t : sorted) {
    text.push_back(std::to_string(t.partition.value()));
    text.push_back(std::to_string(t.next.value()));
  }
  for (size_t i = 0; i < sorted.size(); ++i) {
    cells.push_back(param::text(_connector));
    cells.push_back(param::text(sorted[i].topic));
    cells.push_back(param::text(text[2 * i]));
    cells.push_back(param::text(text[2 * i + 1]));
  }
  conn.exec_bulk(offset_set_sql(_table, _dialect), 4, cells);
  std::vector<offset_key> keys;
  for (const offset_target& t : sorted)
    keys.push_back({t.topic, t.partition});
  return read_keys(conn, std::move(keys), false);
}

std::vector<stored_offset> offset_store::clear(connection& conn,
                                               const std::vector<offset_key>& partitions) const {
  if (partitions.empty()) {
    // Rows locked in (topic, partition) order, as every writer of this table locks them.
    conn.exec("UPDATE " + _table +
                  " SET next_offset = NULL, owner_epoch = owner_epoch + 1, "
                  "updated_at = UTC_TIMESTAMP(6) WHERE connector = ? ORDER BY topic, `partition`",
              std::vector{param::text(_connector)});
    return read(conn);
  }
  std::vector<offset_key> keys = partitions;
  sort_keys(keys);
  std::vector<std::string> numbers;
  numbers.reserve(keys.size());
  for (const offset_key& k : keys)
    numbers.push_back(std::to_string(k.partition.value()));
  std::vector<param> cells;
  for (size_t i = 0; i < keys.size(); ++i) {
    cells.push_back(param::text(_connector));
    cells.push_back(param::text(keys[i].topic));
    cells.push_back(param::text(numbers[i]));
  }
  conn.exec_bulk("UPDATE " + _table +
                     " SET next_offset = NULL, owner_epoch = owner_epoch + 1, "
                     "updated_at = UTC_TIMESTAMP(6) "
                     "WHERE connector = ? AND topic = ? AND `partition` = CAST(? AS SIGNED)",
                 3, cells);
  return read_keys(conn, std::move(keys), false);
}

std::vector<stored_offset> offset_store::read(connection& conn) const {
  return rows_to_offsets(conn.query("SELECT " + std::string(columns) + " FROM " + _table +
                                        " WHERE connector = ? ORDER BY topic, `partition`",
                                    std::vector{param::text(_connector)}));
}

std::vector<stored_offset> offset_store::read(
    connection& conn, const std::vector<partition_progress>& progress) const {
  std::vector<offset_key> keys;
  for (const partition_progress& p : progress)
    keys.push_back({p.topic, p.partition});
  return read_keys(conn, std::move(keys), true);
}

std::vector<stored_offset> offset_store::read_keys(connection& conn, std::vector<offset_key> keys,
                                                   bool lock) const {
  sort_keys(keys);
  if (keys.empty()) return {};
  std::string sql = "SELECT " + std::string(columns) + " FROM " + _table +
                    " WHERE connector = ? AND (topic, `partition`) IN (";
  std::vector<std::string> numbers;
  numbers.reserve(keys.size());
  std::vector<param> params{param::text(_connector)};
  for (const offset_key& k : keys)
    numbers.push_back(std::to_string(k.partition.value()));
  for (size_t i = 0; i < keys.size(); ++i) {
    sql += i ? ", (?, CAST(? AS SIGNED))" : "(?, CAST(? AS SIGNED))";
    params.push_back(param::text(keys[i].topic));
    params.push_back(param::text(numbers[i]));
  }
  sql += ") ORDER BY topic, `partition`";
  if (lock) sql += " " + std::string(shared_lock(_dialect));
  return rows_to_offsets(conn.query(sql, params));
}

}  // namespace sluice::mdb
