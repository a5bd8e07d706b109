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
int32_t key_lock_bucket(const target_table& table, std::string_view canonical_key,
                        uint32_t buckets);

// The advisory locks one batch transaction takes before it writes (SPEC §4 "Concurrency"):
// per table, shared by writers and exclusive by truncates; per key-hash bucket, exclusive.
// Writers of one key therefore serialize, and a truncate waits for every writer of its
// table. All are transaction-scoped and taken in one statement, tables then buckets, each
// in ascending order, so two batches never wait on each other in a cycle.
//
// Lifecycle: clear(), add_*() for every table and key of the batch, acquire() inside the
// transaction. Threading: one per apply lane.
class key_lock_set {
 public:
  explicit key_lock_set(uint32_t buckets) : _buckets(buckets == 0 ? 1 : buckets) {}

  void clear();
  void add_table(const target_table& table, bool exclusive);
  void add_key(const target_table& table, std::string_view canonical_key);

  // Sorts and deduplicates (exclusive wins over shared for a table), then locks.
  void acquire(pqxx::transaction_base& tx);

  // After acquire() or finish(): what is locked, in lock order.
  void finish();
  const std::vector<int32_t>& tables() const { return _tables; }
  const std::vector<bool>& exclusive() const { return _exclusive; }
  const std::vector<int32_t>& buckets() const { return _keys; }

  static const char* sql();

 private:
  uint32_t _buckets;
  std::vector<std::pair<int32_t, bool>> _table_requests;
  std::vector<int32_t> _tables;
  std::vector<bool> _exclusive;
  std::vector<int32_t> _keys;
};

}  // namespace sluice
