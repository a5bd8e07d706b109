#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice {

struct table_entry;

// One source table's share of an applied batch (for per-table metrics).
struct table_apply_stats {
  const table_entry* table = nullptr;  // the source table (core/catalog)
  std::string target;                  // the target table, "schema.table"
  size_t written = 0;                  // rows inserted, updated or appended
  size_t deleted = 0;
  size_t stale = 0;
  size_t rejected = 0;  // refused by the planner or the database (dead-lettered)
  size_t missing = 0;   // insert.mode update: changes of rows the table does not hold
};

// A target table whose auto-create / auto-evolve failed in a batch (ddl.failure:
// dead_letter): its rows went to the dead letters.
struct table_ddl_failure {
  std::string target;  // "schema.table"
  std::string error;   // the PostgreSQL error (or why sluice would not make it)
};

// What one applied batch did to the replica. "stale" rows reached the database and were
// refused by the CSN or tombstone guard: the replica already held something newer.
struct apply_stats {
  size_t upserted = 0;         // rows inserted or updated
  size_t deleted = 0;          // rows deleted (hard) or marked deleted (soft)
  size_t stale = 0;            // upserts and deletes the guards refused
  size_t missing = 0;          // insert.mode update: upserts of rows the table lacks, not made
  size_t tombstones = 0;       // tombstones written or raised
  size_t deletes_ignored = 0;  // deletes counted only (delete.enabled: false)
  size_t truncates_applied = 0;
  size_t truncates_ignored = 0;           // truncates counted only (truncate.enabled: false)
  size_t appended = 0;                    // keyless changes appended
  size_t dead_lettered = 0;               // dead letters written, given and found while applying
  size_t rejected = 0;                    // of those, changes the database or the planner refused
  int attempts = 0;                       // transactions run (1 when nothing failed)
  size_t chunks_completed = 0;            // chunked records reassembled (applied or dead-lettered)
  size_t chunks_expired = 0;              // chunked records given up after chunk.timeout
  int64_t pending_chunks = -1;            // chunks pending after the batch; -1: not looked at
  std::vector<table_apply_stats> tables;  // per plan written, in write order
  std::vector<table_ddl_failure> ddl_failures;

  apply_stats& operator+=(const apply_stats& o) {
    upserted += o.upserted;
    deleted += o.deleted;
    stale += o.stale;
    missing += o.missing;
    tombstones += o.tombstones;
    deletes_ignored += o.deletes_ignored;
    truncates_applied += o.truncates_applied;
    truncates_ignored += o.truncates_ignored;
    appended += o.appended;
    dead_lettered += o.dead_lettered;
    rejected += o.rejected;
    chunks_completed += o.chunks_completed;
    chunks_expired += o.chunks_expired;
    if (o.pending_chunks >= 0) pending_chunks = o.pending_chunks;
    tables.insert(tables.end(), o.tables.begin(), o.tables.end());
    ddl_failures.insert(ddl_failures.end(), o.ddl_failures.begin(), o.ddl_failures.end());
    return *this;
  }
};

}  // namespace sluice
