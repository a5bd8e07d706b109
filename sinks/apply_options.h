#pragma once

#include <functional>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/catalog/table_router.h"
#include "core/model/chunk_piece.h"

namespace sluice {

enum class apply_delete_mode : uint8_t { hard, soft };
enum class apply_keyless_mode : uint8_t { append, dead_letter };
// How a statement's rows reach the server (SPEC §4 "Bulk path").
enum class apply_bulk_path : uint8_t {
  copy,    // COPY into a session staging table (copy_stager.h)
  unnest,  // unnest() over one array parameter per column
};

// What the batch applier does with a merged batch (SPEC §4). Filled from the connector's
// configuration; every field has the documented default. (How failures are retried is the
// session's: session/retry_policy.h.)
struct apply_options {
  std::string state_schema = "sluice";  // postgres.state.schema
  std::string connector;                // name: keys offsets and dead letters
  bool auto_create = true;
  bool auto_evolve = true;
  bool auto_evolve_widen = false;  // ALTER COLUMN TYPE when the stream's type grew
  apply_delete_mode deletes = apply_delete_mode::hard;
  bool delete_enabled = true;  // false: deletes are counted, neither applied nor tombstoned
  bool update_only = false;    // insert.mode update: rows the table lacks are counted, not made
  // primary.key.mode kafka: an append a unique index refuses is a position written already (a
  // table Connect's sink built is keyed by __connect_topic, _partition, _offset): skipped.
  bool append_skips_any_conflict = false;
  bool truncate_enabled = false;  // false: truncates are counted only
  apply_keyless_mode keyless = apply_keyless_mode::append;
  routing_options routing;
  // The key columns (source names) that name the shard of a logical table
  // (ByLogicalTableRouter's key.field.name, with key.enforce.uniqueness): source tables whose
  // rows are keyed by one of them are shards, which may share a target
  // (state/route_registry.h), and whose truncates remove their own rows only.
  std::vector<std::string> shard_columns;
  // tables.include / tables.exclude (core/catalog/table_filter.h).
  std::vector<std::string> tables_include;
  std::vector<std::string> tables_exclude;
  // ddl.failure: a table whose auto-create / auto-evolve fails has its rows dead-lettered
  // (kind ddl_failed) while the others go on; false: the failure stops the batch (thrown).
  bool ddl_failure_dead_letters = true;
  // The DDL's own limits (postgres.ddl.*; 0: none). A short lock wait, retried with jitter,
  // so that an ALTER queued behind a long reader never queues every later reader of the table
  // behind itself for long; no statement timeout by default (a widening of a big table takes
  // what it takes), the round-trip deadline lifted meanwhile.
  std::chrono::milliseconds ddl_lock_timeout{2'000};
  std::chrono::milliseconds ddl_statement_timeout{0};
  // MariaDB's DDL waits for its metadata lock in slices of ddl_lock_timeout, the connector
  // DEGRADED meanwhile, for at most this long in all (0: until the lock comes or the batch is
  // abandoned); past it, the table's rows are ddl_failed dead letters.
  std::chrono::milliseconds ddl_wait_limit{0};
  // Target "schema.table" -> target column name -> SQL type, used when sluice creates the
  // table or adds the column. Column names go through the routing case policy.
  std::map<std::string, std::map<std::string, std::string>> column_types;
  // Writers of one key serialize on an advisory lock per key (key_locks.h). Each takes a slot
  // of PostgreSQL's shared lock table, max_locks_per_transaction x (max_connections +
  // max_prepared_transactions): a batch takes at most max_key_locks of them, and a batch with
  // more keys locks its tables exclusively instead. 0: a 32nd of the server's lock table.
  size_t max_key_locks = 0;
  // MariaDB: a batch of at least this many upserts into a table whose last ones all went
  // straight in (new keys, no tombstones) locks the table exclusively instead of their keys
  // (mdb::table_writer::inserts_alone). 0: the writer's default.
  size_t min_rows_alone = 0;
  // COPY by default: integration/bench/apply_bench.cc measures both on the same rows.
  apply_bulk_path bulk_path = apply_bulk_path::copy;
  // Chunked records (chunk_store.h): a chunk still incomplete this much Kafka time after its
  // first piece is dead-lettered (chunk.timeout; 0: never). The factory makes each applier's
  // decoder for completed chunks (the connector's DSQL decoder); without it they are
  // dead-lettered.
  std::chrono::milliseconds chunk_timeout{15 * 60 * 1000};
  // A complete chunk whose fragments hold more is refused unread (chunk.max.bytes).
  size_t chunk_max_bytes = size_t{64} << 20;
  // The decoder is given the applier's keep-going test: a decoder that asks the database (a
  // key lookup) stops waiting out an outage once the batch is abandoned.
  std::function<std::unique_ptr<chunk_decoder>(std::function<bool()> keep_going)> chunk_decoders;
};

}  // namespace sluice
