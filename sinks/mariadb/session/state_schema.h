#pragma once

#include <string>
#include <string_view>

#include "sinks/mariadb/session/mdb_connection.h"

namespace sluice::mdb {

// sluice's own tables on MariaDB (SPEC §4, §6b), the same contract as PostgreSQL's
// (postgres/session/state_schema.h) in a database of their own (a MariaDB "schema"; default
// `sluice`): offsets, dead_letters, tombstones, pending_fragments, catalog, ddl_history,
// table_progress, routes, registry_schemas, connector_control, members, and key_locks /
// table_locks (the rows writers lock to serialize per key and per table: MariaDB's GET_LOCK is
// per session and survives COMMIT, InnoDB row locks end with the transaction). Every table is
// InnoDB, utf8mb4 with the binary NO PAD collation, so that names compare exactly; times are
// datetime(6) in UTC (every sluice session runs with time_zone '+00:00').
//
// Lifecycle: migrate() runs once per connection at start-up, before any batch. DDL commits
// implicitly on MariaDB, so a migration cannot be one transaction: instances starting at once
// serialize on a named lock (GET_LOCK, released at the end), and every step is idempotent
// (IF NOT EXISTS), its version recorded once its statements ran. Threading: none of its own.
class state_schema {
 public:
  // The version this build creates and expects.
  // 1: the first; 2: key_locks, a row per key (session/key_locks.h), instead of lock_buckets.
  static constexpr int current_version = 2;
  // Rows of version 1's lock_buckets (hash(key) % lock_bucket_count), made still by step 1.
  static constexpr int lock_bucket_count = 4096;

  explicit state_schema(std::string database);

  // Creates or upgrades the database's state tables; returns the version found before (0:
  // none). Throws std::runtime_error when the database holds a newer version than this build
  // knows, mdb_error when the server refuses.
  int migrate(connection& conn) const;

  const std::string& name() const { return _database; }
  // The quoted, database-qualified name of one of the state tables: `sluice`.`offsets`.
  std::string table(std::string_view name) const;

 private:
  std::string _database;
  std::string _quoted;
};

}  // namespace sluice::mdb
