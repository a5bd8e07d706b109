#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <pqxx/connection>

#include "core/merge/merge_engine.h"
#include "core/merge/merged_batch.h"
#include "core/model/batch_records.h"
#include "sinks/postgres/apply_options.h"
#include "sinks/postgres/apply_stats.h"
#include "sinks/postgres/batch_metadata.h"
#include "sinks/postgres/catalog_writer.h"
#include "sinks/postgres/chunk_store.h"
#include "sinks/postgres/dead_letter_writer.h"
#include "sinks/postgres/key_locks.h"
#include "sinks/postgres/offset_store.h"
#include "sinks/postgres/pg_error_policy.h"
#include "sinks/postgres/stale_epoch_error.h"
#include "sinks/postgres/state_schema.h"
#include "sinks/postgres/table_ddl.h"
#include "sinks/postgres/table_planner.h"
#include "sinks/postgres/table_progress_store.h"
#include "sinks/postgres/table_writer.h"

namespace sluice {

// One apply lane: a PostgreSQL connection that turns merged batches into replica rows, in
// one transaction per batch together with the batch's dead letters and the offsets
// compare-and-set (SPEC §4 "Batch transaction"). Per batch:
//
//   plan      route tables, map and check columns; refuse bad input as dead letters
//   prepare   auto-create / auto-evolve targets (own short transaction, only when needed)
//   BEGIN
//     chunks  pieces of chunked records stored, completed ones reassembled and decoded into
//             a second, small merged batch written after the first (chunk_store.h); a
//             completed chunk needing DDL rolls back, runs it, and runs the batch again
//     lock    advisory locks: tables (shared; exclusive to truncate), then keys
//     CAS     offsets: moves only where (owner_epoch, next_offset) are still the expected
//             ones, else stale_epoch_error and nothing of the batch is kept
//     write   per table: truncate, deletes + tombstones, guarded upserts (table_writer)
//     metadata catalog updates and DDL history (catalog_writer)
//     dead letters
//   COMMIT
//
// Failures follow pg_error_policy: transient ones re-run the whole transaction with bounded
// exponential backoff (reconnecting when the connection broke); a commit whose outcome is
// unknown is resolved by reading the offsets back; a change the database refuses (class
// 22/23) is isolated by re-running the table writes in halves under savepoints, and goes to
// the dead letters alone while the rest commits; anything else is rethrown.
//
// Lifecycle: construct (no I/O), then claim() on assignment and apply() per batch; the
// connection opens and the state schema is migrated on first use. Threading: one thread at
// a time (one lane); lanes are separate instances.
class pg_applier {
 public:
  pg_applier(std::string dsn, apply_options options);
  ~pg_applier();
  pg_applier(const pg_applier&) = delete;
  pg_applier& operator=(const pg_applier&) = delete;

  // Opens the connection and migrates the state schema now (otherwise done on first use).
  void start();

  // Takes ownership of partitions of a topic for options().connector: bumps their owner
  // epochs and returns them with the offset to resume from.
  std::vector<claimed_partition> claim(const std::string& topic,
                                       const std::vector<partition_id>& partitions);

  // Applies one batch in one transaction. dead_letters are the batch's undecodable messages;
  // progress the offsets it moves (each (topic, partition) once; empty for replays that do
  // not touch offsets). Throws stale_epoch_error when the offsets compare-and-set fails,
  // schema_error when a table may not be created or evolved, and the PostgreSQL error when it
  // is fatal or retries are exhausted. metadata: the catalog updates and DDL records the
  // batch's messages decoded into, written in the same transaction.
  apply_stats apply(const merged_batch& batch, const std::vector<dead_letter>& dead_letters,
                    const std::vector<partition_progress>& progress,
                    const batch_metadata& metadata = {});

  // What <state schema>.catalog holds for options().connector: at start-up, teach the table
  // catalog what metadata records taught before the committed offsets.
  std::vector<catalog_update> load_catalog();

  // Stored offsets of a connector (default: this one), for status.
  std::vector<stored_offset> read_offsets();
  std::vector<stored_offset> read_offsets(const std::string& connector);
  // A target table's primary key columns, in key order (empty: no such table or no key).
  std::vector<std::string> target_primary_key(const target_table& table);
  // Per target table of this connector, the newest applied source timestamp (for status).
  std::vector<table_progress> read_table_progress();

  // Deletes tombstones older than the retention (tombstone.retention); returns how many.
  size_t expire_tombstones(std::chrono::seconds retention);
  // Chunks of this connector whose pieces wait for the rest, as committed now.
  size_t pending_chunks();

  // Called in the batch transaction just before it commits, with the dead letters the apply
  // itself found (rows the planner or PostgreSQL refused, chunks that failed): the runtime
  // produces them to the dead-letter topic, so that they are in Kafka before the batch
  // commits. A throw aborts the transaction. A retried batch calls it again (at least once).
  using dead_letter_sink = std::function<void(const std::vector<const dead_letter*>&)>;
  void set_dead_letter_sink(dead_letter_sink sink) { _dead_letter_sink = std::move(sink); }

  const apply_options& options() const { return _options; }
  // What the last failure was classified as (for metrics: sluice_postgres_errors_total).
  const pg_error_class& last_error() const { return _last_error; }

 private:
  pqxx::connection& connection();
  void drop_connection();
  void run_batch(std::vector<table_plan>& plans, const std::vector<dead_letter>& given,
                 std::vector<dead_letter>& found, const std::vector<partition_progress>& progress,
                 const batch_metadata& metadata, bool isolate, apply_stats& stats);
  void write_isolated(pqxx::dbtransaction& tx, table_plan& plan, size_t begin, size_t end,
                      std::vector<dead_letter>& found, apply_stats& stats);
  std::vector<table_plan> complete_chunks(pqxx::dbtransaction& tx, const batch_metadata& metadata,
                                          std::vector<dead_letter>& letters, apply_stats& stats);
  commit_outcome resolve_in_doubt(const std::vector<partition_progress>& progress);
  void backoff(int failures) const;
  // Runs a short idempotent transaction body with the retry policy.
  template <typename F>
  auto with_retries(F&& body);

  std::string _dsn;
  apply_options _options;
  state_schema _schema;
  table_planner _planner;
  table_ddl _ddl;
  table_writer _writer;
  key_lock_set _locks;
  offset_store _offsets;
  table_progress_store _progress;
  dead_letter_writer _dead_letters;
  catalog_writer _catalog;
  chunk_store _chunks;
  std::unique_ptr<chunk_decoder> _chunk_decoder;  // made on first use
  dead_letter_sink _dead_letter_sink;
  merge_engine _chunk_merge;
  merged_batch _completed;       // the last attempt's completed chunks (plans point into it)
  timestamp_ns _stream_time{0};  // newest Kafka timestamp seen: chunk.timeout's clock
  pg_error_class _last_error;
  bool _migrated = false;
  std::unique_ptr<pqxx::connection> _conn;  // last: closed first
};

}  // namespace sluice
