#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/merge/merge_engine.h"
#include "core/merge/merged_batch.h"
#include "core/model/batch_records.h"
#include "sinks/apply_options.h"
#include "sinks/apply_result.h"
#include "sinks/apply_stats.h"
#include "sinks/batch_applier.h"
#include "sinks/batch_metadata.h"
#include "sinks/mariadb/plan/table_ddl.h"
#include "sinks/mariadb/session/key_locks.h"
#include "sinks/mariadb/session/mdb_session.h"
#include "sinks/mariadb/state/catalog_writer.h"
#include "sinks/mariadb/state/chunk_store.h"
#include "sinks/mariadb/state/dead_letter_writer.h"
#include "sinks/mariadb/state/offset_store.h"
#include "sinks/mariadb/state/route_registry.h"
#include "sinks/mariadb/state/table_progress_store.h"
#include "sinks/mariadb/write/table_writer.h"
#include "sinks/plan/stream_clock.h"
#include "sinks/plan/table_planner.h"

namespace sluice::mdb {

// The batch applier role on MariaDB (the model: postgres/batch_applier.h, whose steps it
// keeps): one merged batch into the replica in one InnoDB transaction, together with its dead
// letters and the offsets compare-and-set. Per batch:
//
//   plan      route tables, map and check columns (sinks/plan/, MariaDB's rules)
//   routes    claim new targets for their source (own short transaction)
//   prepare   auto-create / auto-evolve, OUTSIDE the transaction (MariaDB commits DDL
//             implicitly), table by table: a table whose DDL fails has its rows dead-lettered
//   START TRANSACTION
//     chunks  pieces of chunked records stored, completed ones reassembled and decoded into
//             a second, small merged batch written after the first (state/chunk_store.h); a
//             completed chunk whose tables need DDL (or a claim, or a table_locks row) rolls
//             back, has it made outside the transaction, and runs the batch again
//     lock    table_locks rows (share; exclusive to truncate), then key_locks rows of the
//             keys, in order (session/key_locks.h: InnoDB row locks end with the transaction)
//     CAS     offsets: moves only where (owner_epoch, next_offset) are the expected ones
//     write   per table: truncate, deletes + tombstones, guarded upserts (write/)
//     metadata catalog updates, DDL history, table progress
//     dead letters
//   COMMIT
//
// Failures follow the session's policy: a lost connection is waited out; 1213 (deadlock: the
// server rolled back) and 1205 (lock wait: only the statement rolled back, so the transaction
// is rolled back here) re-run the whole transaction; a COMMIT whose outcome is unknown (the
// connection lost during it) is resolved by reading the offsets back; a value the server
// refuses is isolated by re-running the table writes in halves under savepoints, and that
// change alone goes to the dead letters.
//
// Lifecycle: construct (no I/O) on a session it owns the hooks of; apply() per batch.
// Threading: the session's thread.
class batch_applier final : public sink::batch_applier {
 public:
  batch_applier(mdb_session& session, apply_options options);
  ~batch_applier();
  batch_applier(const batch_applier&) = delete;
  batch_applier& operator=(const batch_applier&) = delete;

  apply_result apply(const merged_batch& batch, const std::vector<dead_letter>& dead_letters,
                     const std::vector<partition_progress>& progress,
                     const batch_metadata& metadata = {}, const keep_going& go = {}) override;
  void set_dead_letter_sink(dead_letter_sink sink) override { _dead_letter_sink = std::move(sink); }
  void remove_replayed_letters(const std::vector<int64_t>* ids) override { _replayed = ids; }

 private:
  enum class attempt_end : uint8_t { committed, stale, chunk_ddl_needed, abandoned };

  attempt_end run_batch(connection& conn, std::vector<table_plan>& plans,
                        const std::vector<dead_letter>& given, std::vector<dead_letter>& found,
                        const std::vector<partition_progress>& progress,
                        const batch_metadata& metadata, bool isolate, apply_stats& stats,
                        std::string& why);
  void write_isolated(connection& conn, table_plan& plan, size_t begin, size_t end,
                      std::vector<dead_letter>& found, apply_stats& stats);
  void check_routes(connection& conn, std::vector<table_plan>& plans,
                    std::vector<dead_letter>& rejects);
  // The completed chunks' plans (inside the transaction); false when their tables need DDL,
  // a route claim or a table_locks row first (prepare_chunk_tables(), outside it).
  bool complete_chunks(connection& conn, const batch_metadata& metadata,
                       std::vector<dead_letter>& letters, apply_stats& stats,
                       std::vector<table_plan>& plans);
  // What the last attempt's completed chunks need made outside the transaction.
  void prepare_chunk_tables(connection& conn, const table_ddl::waiting_fn& waiting);
  // The SQL text for the server the connection reached (sql_dialect::of_server): MariaDB 10.6
  // has no uuid type; MySQL 8's text differs (not run here). Chunk bookkeeping keeps
  // MariaDB's text (chunk_store holds the batch's pending pieces).
  void follow_server(unsigned long version);

  mdb_session& _session;
  apply_options _options;
  table_planner _planner;
  unsigned long _server_version = 0;  // the one the members below write for (0: none yet)
  table_ddl _ddl;
  table_writer _writer;
  key_lock_set _locks;
  offset_store _offsets;
  table_progress_store _progress;
  dead_letter_writer _dead_letters;
  catalog_writer _catalog;
  route_registry _routes;
  chunk_store _chunks;
  std::unique_ptr<chunk_decoder> _chunk_decoder;  // made on first use
  merge_engine _chunk_merge;
  merged_batch _completed;       // the last attempt's completed chunks (plans point into it)
  stream_clock _stream_clock{};  // chunk.timeout's clock: Kafka time, capped near wall time
  dead_letter_sink _dead_letter_sink;
  const std::vector<int64_t>* _replayed = nullptr;  // dead-letters replay: deleted on commit
  keep_going _go;
};

}  // namespace sluice::mdb
