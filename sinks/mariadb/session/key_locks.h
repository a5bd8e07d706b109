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

// The key_locks row of one key of a table: its 64-bit hash of (table, key) (FNV-1a, the same
// bytes as PostgreSQL's key_lock_key), fixed here so that every sluice version and instance
// agrees on it. Two keys that share a hash only wait for each other; they never miss a conflict.
uint64_t key_hash(const target_table& table, std::string_view canonical_key);

// The row locks one batch transaction takes before it writes (SPEC §4 "Concurrency"), the
// counterpart of postgres/session/key_locks.h: MariaDB's GET_LOCK is per session and survives
// COMMIT, so writers lock InnoDB rows of the state database, which end with the transaction:
//   per table, its table_locks row, in share mode by writers and FOR UPDATE by a truncate;
//   per key, its key_locks row (key_hash, big-endian binary(8)), made and locked at once by a
//   multi-row INSERT … ON DUPLICATE KEY UPDATE: a new row is the inserter's until COMMIT, an
//   existing one takes an exclusive record lock (READ COMMITTED, a primary key: no gap lock).
// Writers of one key therefore serialize, a truncate waits for every writer of its table, and
// batches of different keys write at once (state schema 1 had 4,096 buckets: a batch of 5 k
// keys covered most of them, and two lanes took turns). Tables are locked before keys, each in
// ascending order (keys in statements of at most key_chunk rows, each run in the order bound),
// so two batches never wait on each other in a cycle. A batch with more keys than max_keys
// locks its tables exclusively instead (as PostgreSQL's does past its lock budget).
//
// key_locks only grows (a row per key ever written): the janitor empties it now and then
// (state_janitor.h); a row deleted is made again by its key's next writer.
//
// A table's row must exist before it can be locked, and inserting it inside the transaction
// would hold it exclusively until COMMIT: prepare() inserts the missing rows (INSERT IGNORE,
// autocommitted) before the transaction begins; acquire() fails if one is missing.
//
// Lifecycle: clear(), add_*() for every table and key of the batch, prepare(conn) outside the
// transaction, acquire(conn) inside it. Threading: one per apply lane.
class key_lock_set {
 public:
  // Past this many keys a batch locks its tables instead: InnoDB's row locks cost a bit per
  // row of a page, so the limit is the batch's memory, not the server's.
  static constexpr size_t default_max_keys = 1'000'000;

  explicit key_lock_set(state_schema schema, size_t max_keys = default_max_keys)
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
  const std::vector<uint64_t>& keys() const { return _keys; }

  // The statements, for tests: a table's row, and a chunk of keys' rows.
  std::string table_lock_sql(bool exclusive) const;
  std::string key_lock_sql(std::span<const uint64_t> keys) const;
  // At most this many keys per statement.
  static constexpr size_t key_chunk = 5000;

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
  std::vector<uint64_t> _keys;
  std::set<target_table> _prepared;  // tables whose row exists
};

}  // namespace sluice::mdb
