#include "sinks/postgres/state/offset_store.h"

#include <algorithm>
#include <set>
#include <tuple>

#include <pqxx/result>

#include "sinks/postgres/sql/pg_array.h"

namespace sluice {
namespace {

std::string label(const std::string& topic, int32_t partition) {
  return topic + "[" + std::to_string(partition) + "]";
}

std::vector<stored_offset> rows_to_offsets(const pqxx::result& r) {
  std::vector<stored_offset> out;
  out.reserve(r.size());
  for (const pqxx::row& row : r) {
    stored_offset o;
    o.topic = row[0].as<std::string>();
    o.partition = partition_id(row[1].as<int32_t>());
    if (!row[2].is_null()) o.next = kafka_offset(row[2].as<int64_t>());
    o.epoch = owner_epoch(row[3].as<int64_t>());
    o.updated_at = row[4].as<std::string>();
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace

offset_store::offset_store(const state_schema& schema, std::string connector)
    : _table(schema.table("offsets")), _connector(std::move(connector)) {}

std::vector<claimed_partition> offset_store::claim(pqxx::transaction_base& tx,
                                                   const std::string& topic,
                                                   std::vector<partition_id> partitions) const {
  std::sort(partitions.begin(), partitions.end());
  partitions.erase(std::unique(partitions.begin(), partitions.end()), partitions.end());
  pg_array parts;
  for (partition_id p : partitions)
    parts.add_int(p.value());
  // Rows are locked in partition order, like every writer of this table.
  const pqxx::result r =
      tx.exec_params("INSERT INTO " + _table +
                         " AS o (connector, topic, partition, next_offset, owner_epoch) "
                         "SELECT $1, $2, p, NULL, 1 FROM unnest($3::int4[]) AS p ORDER BY p "
                         "ON CONFLICT (connector, topic, partition) DO UPDATE "
                         "SET owner_epoch = o.owner_epoch + 1, updated_at = now() "
                         "RETURNING partition, owner_epoch, next_offset",
                     _connector, topic, parts.take());
  std::vector<claimed_partition> out;
  for (const pqxx::row& row : r) {
    claimed_partition c;
    c.partition = partition_id(row[0].as<int32_t>());
    c.epoch = owner_epoch(row[1].as<int64_t>());
    if (!row[2].is_null()) c.next = kafka_offset(row[2].as<int64_t>());
    out.push_back(c);
  }
  std::sort(out.begin(), out.end(), [](const claimed_partition& a, const claimed_partition& b) {
    return a.partition < b.partition;
  });
  return out;
}

std::vector<std::string> offset_store::advance(
    pqxx::transaction_base& tx, const std::vector<partition_progress>& progress) const {
  if (progress.empty()) return {};
  std::vector<const partition_progress*> sorted;
  for (const partition_progress& p : progress)
    sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return std::tie(a->topic, a->partition) < std::tie(b->topic, b->partition);
  });
  pg_array topics, parts, epochs, expected, next;
  for (const partition_progress* p : sorted) {
    topics.add(p->topic);
    parts.add_int(p->partition.value());
    epochs.add_int(p->epoch.value());
    if (p->expected.value() < 0) {
      expected.add_null();  // claimed, nothing committed yet
    } else {
      expected.add_int(p->expected.value());
    }
    next.add_int(p->next.value());
  }
  const pqxx::result r = tx.exec_params(
      "UPDATE " + _table +
          " AS o SET next_offset = p.next, updated_at = now() "
          "FROM unnest($2::text[], $3::int4[], $4::bigint[], $5::bigint[], $6::bigint[]) "
          "AS p(topic, partition, epoch, expected, next) "
          "WHERE o.connector = $1 AND o.topic = p.topic AND o.partition = p.partition "
          "AND o.owner_epoch = p.epoch AND o.next_offset IS NOT DISTINCT FROM p.expected "
          "RETURNING o.topic, o.partition",
      _connector, topics.take(), parts.take(), epochs.take(), expected.take(), next.take());
  std::set<std::pair<std::string, int32_t>> moved;
  for (const pqxx::row& row : r)
    moved.emplace(row[0].as<std::string>(), row[1].as<int32_t>());
  std::vector<std::string> stale;
  for (const partition_progress* p : sorted) {
    if (!moved.count({p->topic, p->partition.value()})) {
      stale.push_back(label(p->topic, p->partition.value()));
    }
  }
  return stale;
}

std::vector<stored_offset> offset_store::reset(pqxx::transaction_base& tx,
                                               const std::vector<offset_target>& targets) const {
  if (targets.empty()) return {};
  pg_array topics, parts, next;
  for (const offset_target& t : targets) {
    topics.add(t.topic);
    parts.add_int(t.partition.value());
    next.add_int(t.next.value());
  }
  return rows_to_offsets(tx.exec_params(
      "WITH moved AS (INSERT INTO " + _table +
          " AS o (connector, topic, partition, next_offset, owner_epoch) "
          "SELECT $1, p.topic, p.partition, p.next, 1 "
          "FROM unnest($2::text[], $3::int4[], $4::bigint[]) AS p(topic, partition, next) "
          "ORDER BY p.topic, p.partition "
          "ON CONFLICT (connector, topic, partition) DO UPDATE "
          "SET next_offset = excluded.next_offset, owner_epoch = o.owner_epoch + 1, "
          "updated_at = now() "
          "RETURNING o.topic, o.partition, o.next_offset, o.owner_epoch, o.updated_at::text) "
          "SELECT * FROM moved ORDER BY 1, 2",
      _connector, topics.take(), parts.take(), next.take()));
}

std::vector<stored_offset> offset_store::clear(pqxx::transaction_base& tx,
                                               const std::vector<offset_key>& partitions) const {
  pg_array topics, parts;
  for (const offset_key& k : partitions) {
    topics.add(k.topic);
    parts.add_int(k.partition.value());
  }
  // Rows locked in (topic, partition) order, as every writer of this table locks them.
  return rows_to_offsets(tx.exec_params(
      "WITH chosen AS (SELECT o.topic, o.partition FROM " + _table +
          " o WHERE o.connector = $1 AND ($4 OR (o.topic, o.partition) IN "
          "(SELECT * FROM unnest($2::text[], $3::int4[]))) "
          "ORDER BY o.topic, o.partition FOR UPDATE), "
          "cleared AS (UPDATE " +
          _table +
          " o SET next_offset = NULL, owner_epoch = o.owner_epoch + 1, updated_at = now() "
          "FROM chosen c WHERE o.connector = $1 AND o.topic = c.topic AND o.partition = "
          "c.partition "
          "RETURNING o.topic, o.partition, o.next_offset, o.owner_epoch, o.updated_at::text) "
          "SELECT * FROM cleared ORDER BY 1, 2",
      _connector, topics.take(), parts.take(), partitions.empty()));
}

std::vector<stored_offset> offset_store::read(pqxx::transaction_base& tx) const {
  return rows_to_offsets(
      tx.exec_params("SELECT topic, partition, next_offset, owner_epoch, updated_at::text FROM " +
                         _table + " WHERE connector = $1 ORDER BY topic, partition",
                     _connector));
}

std::vector<stored_offset> offset_store::read(
    pqxx::transaction_base& tx, const std::vector<partition_progress>& progress) const {
  pg_array topics, parts;
  for (const partition_progress& p : progress) {
    topics.add(p.topic);
    parts.add_int(p.partition.value());
  }
  return rows_to_offsets(tx.exec_params(
      "SELECT o.topic, o.partition, o.next_offset, o.owner_epoch, o.updated_at::text FROM " +
          _table +
          " o JOIN unnest($2::text[], $3::int4[]) AS p(topic, partition) "
          "ON o.topic = p.topic AND o.partition = p.partition "
          "WHERE o.connector = $1 ORDER BY o.topic, o.partition FOR SHARE OF o",
      _connector, topics.take(), parts.take()));
}

}  // namespace sluice
