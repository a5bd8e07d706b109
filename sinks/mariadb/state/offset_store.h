#pragma once

#include <string>
#include <vector>

#include "core/model/batch_records.h"
#include "core/model/named_type.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/state_schema.h"
#include "sinks/mariadb/sql/sql_dialect.h"
#include "sinks/offsets.h"

namespace sluice::mdb {

// <state db>.offsets on MariaDB, keyed by connector name (SPEC §4 "Batch transaction"), the
// same contract as postgres/state/offset_store.h; an in-doubt COMMIT is told by
// sluice::resolve_commit (sinks/offsets.h) over read(conn, progress). Rows are written in
// (topic, partition) order by every statement (array binding: one round trip, one row per
// element, in order), so two writers lock them in one order and cannot deadlock.
// The compare-and-set counts matched rows: the connection runs with CLIENT_FOUND_ROWS, so a
// batch that rewrites a partition's offset to the same value (nothing consumed there) is not
// taken for a fenced writer.
//
// Works inside the caller's transaction (START TRANSACTION … COMMIT on `conn`); holds no
// connection. Threading: none of its own.
class offset_store {
 public:
  // The upsert's text and the shared lock follow `dialect` (state_sql.h, upsert_alias.h).
  offset_store(const state_schema& schema, std::string connector,
               sql_dialect dialect = sql_dialect::mariadb());

  // Bumps the owner epoch of each partition (creating rows with next_offset NULL) and
  // returns the new epochs and stored offsets, in partition order. Two round trips.
  std::vector<claimed_partition> claim(connection& conn, const std::string& topic,
                                       std::vector<partition_id> partitions) const;
  // The compare-and-set: moves each partition to its next offset where the stored epoch and
  // offset are still the expected ones. Returns the partitions that did NOT move, as
  // "topic[partition]" labels (empty: all moved); one round trip when all moved.
  std::vector<std::string> advance(connection& conn,
                                   const std::vector<partition_progress>& progress) const;
  // Moves each partition to its target and bumps its owner epoch (creating rows never
  // claimed): an owner that claimed before fails its next compare-and-set. Returns the rows
  // as they now are.
  std::vector<stored_offset> reset(connection& conn,
                                   const std::vector<offset_target>& targets) const;
  // next_offset NULL (every partition of the connector when `partitions` is empty), epochs
  // bumped as reset() does. Returns the rows as they now are.
  std::vector<stored_offset> clear(connection& conn,
                                   const std::vector<offset_key>& partitions) const;
  // Every stored offset of the connector, by topic and partition.
  std::vector<stored_offset> read(connection& conn) const;
  // The stored offsets of the given partitions (for resolving an in-doubt commit), read
  // LOCK IN SHARE MODE (MySQL: FOR SHARE): a transaction still committing or rolling back on a lost
  // connection holds them, and the read waits for its outcome instead of guessing.
  std::vector<stored_offset> read(connection& conn,
                                  const std::vector<partition_progress>& progress) const;

 private:
  std::vector<stored_offset> read_keys(connection& conn, std::vector<offset_key> keys,
                                       bool lock) const;

  std::string _table;
  std::string _connector;
  sql_dialect _dialect;
};

}  // namespace sluice::mdb
