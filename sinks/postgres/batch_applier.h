#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <pqxx/connection>

#include "core/merge/merge_engine.h"
#include "core/merge/merged_batch.h"
#include "core/model/batch_records.h"
#include "sinks/apply_options.h"
#include "sinks/apply_result.h"
#include "sinks/apply_stats.h"
#include "sinks/batch_applier.h"
#include "sinks/batch_metadata.h"
#include "sinks/plan/stream_clock.h"
#include "sinks/plan/table_planner.h"
#include "sinks/postgres/plan/table_ddl.h"
#include "sinks/postgres/session/key_locks.h"
#include "sinks/postgres/session/pg_session.h"
#include "sinks/postgres/state/catalog_writer.h"
#include "sinks/postgres/state/chunk_store.h"
#include "sinks/postgres/state/dead_letter_writer.h"
#include "sinks/postgres/state/offset_store.h"
#include "sinks/postgres/state/route_registry.h"
#include "sinks/postgres/state/table_progress_store.h"
#include "sinks/postgres/write/table_writer.h"

namespace sluice {

// The batch applier role: turns merged batches into replica rows on its session, in one
// transaction per batch together with the batch's dead letters and the offsets
// compare-and-set (SPEC §4 "Batch transaction"). Per batch:
//
//   plan      route tables, map and check columns; refuse bad input as dead letters (plan/)
//   routes    claim new targets for their source; refuse a source folding onto another's
//             target (state/route_registry.h; own short transaction, only for new targets)
//   prepare   auto-create / auto-evolve targets (own short transaction, only when needed); a
//             table whose DDL fails is isolated: its rows become ddl_failed dead letters
//   BEGIN
//     chunks  pieces of chunked records stored, completed ones reassembled and decoded into
//             a second, small merged batch written after the first (state/chunk_store.h); a
//             completed chunk needing DDL rolls back, runs it, and runs the batch again
//     lock    advisory locks: tables (shared; exclusive to truncate), then keys (write/)
//     CAS     offsets: moves only where (owner_epoch, next_offset) are still the expected
//             ones, else the batch ends stale and nothing of it is kept (state/)
//     write   per table: truncate, deletes + tombstones, guarded upserts (write/)
//     metadata catalog updates and DDL history (state/)
//     dead letters
//   COMMIT
//
// Failures follow the session's policy (session/): a lost connection or a server restarting
// is waited out (reconnecting), statement-level transient errors re-run the whole transaction
// a bounded number of times; a commit whose outcome is unknown is resolved by reading the
// offsets back; a change the database refuses (class 22/23) is isolated by re-running the
// table writes in halves under savepoints, and goes to the dead letters alone while the rest
// commits; anything else is thrown.
//
// Lifecycle: construct (no I/O) on a session it then owns the hooks of; apply() per batch.
// Threading: the session's thread.
class batch_applier final : public sink::batch_applier {
 public:
  batch_applier(pg_session& session, apply_options options);
  ~batch_applier();
  batch_applier(const batch_applier&) = delete;
  batch_applier& operator=(const batch_applier&) = delete;

  // Applies one batch in one transaction. dead_letters are the batch's undecodable messages;
  // progress the offsets it moves (each (topic, partition) once; empty for replays that do
  // not touch offsets); metadata the catalog updates and DDL records the batch's messages
  // decoded into, written in the same transaction. go: asked before every retry; false
  // abandons the batch (its generation is gone, or the connector stops). Throws
  // schema_error when a table may not be created or evolved, session_error when the session
  // gives up, and the PostgreSQL error when it is fatal or statement retries are exhausted
  // (DDL failures only under ddl.failure: fail).
  apply_result apply(const merged_batch& batch, const std::vector<dead_letter>& dead_letters,
                     const std::vector<partition_progress>& progress,
                     const batch_metadata& metadata = {}, const keep_going& go = {}) override;

  // Called in the batch transaction just before it commits, with the dead letters the apply
  // itself found (rows the planner or PostgreSQL refused, chunks that failed): the runtime
  // produces them to the dead-letter topic, so that they are in Kafka before the batch
  // commits. A throw aborts the transaction. A retried batch calls it again (at least once).
  // Its time is off the session's round-trip clock.
  void set_dead_letter_sink(dead_letter_sink sink) override { _dead_letter_sink = std::move(sink); }

  // Called in the batch transaction after its dead letters are written, before the commit
  // (each attempt): `sluice dead-letters replay` deletes the letters the batch re-applied
  // there, so that a letter leaves exactly when its rows are in. A throw aborts the batch.
  // Run in the batch transaction after its dead letters are written, with their ids.
  using transaction_hook =
      std::function<void(pqxx::transaction_base&, const std::vector<int64_t>& written)>;
  void set_transaction_hook(transaction_hook hook) { _transaction_hook = std::move(hook); }
  // The neutral shape of that hook (sink::batch_applier): the letters are deleted through
  // state/dead_letter_store.h in the transaction hook.
  void remove_replayed_letters(const std::vector<int64_t>* ids) override;

  const apply_options& options() const { return _options; }
  pg_session& session() { return _session; }

 private:
  // How one attempt of the batch transaction ended, when PostgreSQL did not fail it.
  enum class attempt_end : uint8_t { committed, stale, chunk_ddl_needed, abandoned };

  attempt_end run_batch(std::vector<table_plan>& plans, const std::vector<dead_letter>& given,
                        std::vector<dead_letter>& found,
                        const std::vector<partition_progress>& progress,
                        const batch_metadata& metadata, bool isolate, apply_stats& stats,
                        std::string& why);
  void write_isolated(pqxx::dbtransaction& tx, table_plan& plan, size_t begin, size_t end,
                      std::vector<dead_letter>& found, apply_stats& stats);
  // The completed chunks' plans; false when their tables need DDL first.
  bool complete_chunks(pqxx::dbtransaction& tx, const batch_metadata& metadata,
                       std::vector<dead_letter>& letters, apply_stats& stats,
                       std::vector<table_plan>& plans);
  // Claims the plans' new targets (own transaction, when some are new) and refuses folded
  // sources.
  void check_routes(pqxx::connection& conn, std::vector<table_plan>& plans,
                    std::vector<dead_letter>& rejects);
  commit_outcome resolve_in_doubt(pqxx::connection& conn,
                                  const std::vector<partition_progress>& progress);
  void session_opened(pqxx::connection& conn);

  pg_session& _session;
  apply_options _options;
  table_planner _planner;
  table_ddl _ddl;
  table_writer _writer;
  key_lock_set _locks;
  offset_store _offsets;
  table_progress_store _progress;
  dead_letter_writer _dead_letters;
  catalog_writer _catalog;
  chunk_store _chunks;
  route_registry _routes;
  std::unique_ptr<chunk_decoder> _chunk_decoder;  // made on first use
  dead_letter_sink _dead_letter_sink;
  transaction_hook _transaction_hook;
  pg_session::keep_going _go;  // the running apply's (chunk decoders ask it)
  merge_engine _chunk_merge;
  merged_batch _completed;       // the last attempt's completed chunks (plans point into it)
  stream_clock _stream_clock{};  // chunk.timeout's clock: Kafka time, capped near wall time
};

}  // namespace sluice
