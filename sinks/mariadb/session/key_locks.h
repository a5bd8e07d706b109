#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/catalog/table_router.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/state_schema.h"

namespace sluice::mdb {

// The lock_buckets row of one key of a table: hash(table, key) % state_schema::lock_bucket_count,
// from a hash fixed here (FNV-1a, 64-bit; the same bytes as PostgreSQL's key_lock_key), so every
// sluice version and instance agrees on it. Two keys that share a bucket only wait for each
// other; they never miss a conflict.
int key_bucket(const target_table& table, std::string_view canonical_key);

// The row locks one batch transaction takes before it writes (SPEC §4 "Concurrency"), the
// counterpart of postgres/session/key_locks.h: MariaDB's GET_LOCK is per session and survives
// COMMIT, so writers lock InnoDB rows of the state database, which end with the transaction:
//   per table, its table_locks row, in share mode by writers and FOR UPDATE by a truncate;
//   per key, its lock_buckets row FOR UPDATE.
// Writers of one key therefore serialize, a truncate waits for every writer of its table, and
// batches with keys in different buckets write at once. Tables are locked before keys, each in
// ascending order (buckets in chunks of at most 1000, chunks ascending), so two batches never
// wait on each other in a cycle. A batch with more buckets than max_keys locks its tables
// exclusively instead (as PostgreSQL's does; a few thousand row locks are cheap, but a batch
// that touches most buckets gains nothing from them).
//
// A table's row must exist before it can be locked, and inserting it inside the transaction
// would hold it exclusively until COMMIT: prepare() inserts the missing rows (INSERT IGNORE,
// autocommitted) before the transaction begins; acquire() fails if one is missing.
//
// Lifecycle: clear(), add_*() for every table and key of the batch, prepare(conn) outside the
// transaction, acquire(conn) inside it. Threading: one per apply lane.
class key_lock_set {
 public:
  explicit key_lock_set(state_schema schema, size_t max_keys = state_schema::lock_bucket_count)
      : _schema(std::move(schema)), _max_keys(max_keys) {}

  void set_max_keys(size_t max_keys) { _max_keys = max_keys; }
  size_t max_keys() const { return _max_keys; }

  void clear();
  void add_table(const target_table& table, bool exclusive);
  void add_key(const target_table& table, std::string_view canonical_key);

  // Sorts and deduplicates (exclusive wins over shared for a table), then makes sure every
  // table has its table_locks row (autocommitted: call it outside the transaction). Tables it
  // made sure of on this set are not asked again.
  void prepare(connection& conn);
  // Sorts and deduplicates, then locks (inside the transaction). Throws std::logic_error
  // when a table's row is missing (prepare() was not called).
  void acquire(connection& conn);

  // Whether a table's row is known to exist (prepare() made sure of it on this set).
  bool prepared(const target_table& table) const { return _prepared.contains(table); }

  // After prepare(), acquire() or finish(): what is locked, in lock order.
  void finish();
  const std::vector<target_table>& tables() const { return _tables; }
  const std::vector<bool>& exclusive() const { return _exclusive; }
  const std::vector<int>& keys() const { return _keys; }

  // The statements, for tests: a table's row, and one chunk of buckets.
  std::string table_lock_sql(bool exclusive) const;
  std::string bucket_lock_sql(std::span<const int> buckets) const;
  // At most this many buckets per statement.
  static constexpr size_t bucket_chunk = 1000;

 private:
  state_schema _schema;
  size_t _max_keys;
  bool _finished = false;
  std::vector<std::pair<target_table, bool>> _table_requests;
  std::vector<target_table> _key_tables;  // the tables of the keys added
  bool _has_last = false;
  target_table _last_table;  // of the last add_key(), and its hash
  uint64_t _last_hash = 0;
  std::vector<target_table> _tables;
  std::vector<bool> _exclusive;
  std::vector<int> _keys;
  std::set<target_table> _prepared;  // tables whose row exists
};

}  // namespace sluice::mdb
