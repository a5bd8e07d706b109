#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <pqxx/transaction_base>

#include "core/catalog/table_router.h"

namespace sluice {

// Advisory-lock keys, from a hash that is fixed here (FNV-1a, 64-bit) rather than taken from
// PostgreSQL, so every sluice version and instance agrees on them.
int32_t table_lock_key(const target_table& table);
// The lock of one key of a table: 32 bits of hash(table, key). Two keys that collide only
// wait for each other; they never miss a conflict.
int32_t key_lock_key(const target_table& table, std::string_view canonical_key);

// The advisory locks one batch transaction takes before it writes (SPEC §4 "Concurrency"):
// per table, shared by writers and exclusive by truncates; per key, exclusive. Writers of one
// key therefore serialize, and a truncate waits for every writer of its table, while lanes
// whose batches hold different keys (Kafka keyed by primary key: different partitions) write
// at once. Every key lock takes a slot of PostgreSQL's shared lock table
// (max_locks_per_transaction x max_connections): a batch with more keys than max_keys locks
// its tables exclusively instead, which excludes every other writer of those tables as the
// key locks would have excluded the writers of its keys. All are transaction-scoped and
// taken in one statement, tables then keys, each in ascending order, so two batches never
// wait on each other in a cycle.
//
// Lifecycle: clear(), add_*() for every table and key of the batch, acquire() inside the
// transaction. Threading: one per apply lane.
class key_lock_set {
 public:
  explicit key_lock_set(size_t max_keys) : _max_keys(max_keys) {}

  // The most key locks one transaction takes (see the class comment).
  void set_max_keys(size_t max_keys) { _max_keys = max_keys; }
  size_t max_keys() const { return _max_keys; }

  void clear();
  void add_table(const target_table& table, bool exclusive);
  void add_key(const target_table& table, std::string_view canonical_key);

  // Sorts and deduplicates (exclusive wins over shared for a table), then locks.
  void acquire(pqxx::transaction_base& tx);

  // After acquire() or finish(): what is locked, in lock order.
  void finish();
  const std::vector<int32_t>& tables() const { return _tables; }
  const std::vector<bool>& exclusive() const { return _exclusive; }
  const std::vector<int32_t>& keys() const { return _keys; }

  static const char* sql();

 private:
  size_t _max_keys;
  std::vector<std::pair<int32_t, bool>> _table_requests;
  std::vector<int32_t> _key_tables;  // the table locks of the keys added
  bool _has_last = false;
  target_table _last_table;  // of the last add_key(), and its hash
  uint64_t _last_hash = 0;
  std::vector<int32_t> _tables;
  std::vector<bool> _exclusive;
  std::vector<int32_t> _keys;
};

}  // namespace sluice
