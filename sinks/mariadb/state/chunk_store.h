#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/batch_records.h"
#include "core/model/chunk_piece.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/state_schema.h"
#include "sinks/mariadb/state/oversized_chunks.h"
#include "sinks/plan/chunk_pieces.h"

namespace sluice::mdb {

// Reassembly of chunked records (Aurora DSQL, SPEC §3) in <state database>.pending_fragments,
// inside the batch transaction (SPEC §4), so that offsets move past pending pieces and a
// restart, another lane or another instance finds them there. The model is PostgreSQL's
// (postgres/state/chunk_store.h), whose steps it keeps; what differs is how a chunk's
// completion is serialized, and that the lock comes before the store:
//
//   process(conn, pieces, stream time):
//     lock     per chunk id (the batch's, and those past chunk.timeout), in ascending order
//              and before any key lock: a lock row (piece -3) inserted — INSERT … ON
//              DUPLICATE KEY UPDATE, an exclusive InnoDB row lock either way — and deleted
//              again before COMMIT, so that the lock ends with the transaction and no one ever
//              sees the row (GET_LOCK is per session and survives COMMIT). A second writer of
//              the chunk waits on the first's row until it commits, then sees its committed
//              pieces (READ COMMITTED reads afresh per statement). Taken before the store, so
//              that every change to a chunk's rows is made under its lock: an INSERT waiting
//              on another's uncommitted piece cannot close a cycle with that writer's DELETE
//     store    pieces, INSERT IGNORE by array binding (an identical redelivery is a no-op);
//              when fewer rows went in than were sent, one SELECT finds those whose pending
//              copy differs (a fragment's bytes, a principal's total or CRC): dead letters.
//              A chunk id longer than the column (255 characters) is a dead letter unstored
//     drop     pieces of chunks that completed before (a marker row, piece -2, stays for
//              chunk.timeout after completion): a late redelivery changes nothing
//     refuse   complete chunks whose fragments hold more than chunk.max.bytes in all
//              (SUM(LENGTH(payload)) in SQL: no byte reaches sluice): deleted unread, leaving
//              the marker; the pieces go to the dead letters without the fragments' bytes
//     complete chunks of the batch with the principal and fragments 0..n-1: DELETE …
//              RETURNING (MySQL 8: SELECT … FOR UPDATE, then DELETE) (leaving the marker),
//              concatenated by index, CRC32C verified,
//              decoded (chunk_decoder) → changes; a CRC mismatch or an undecodable image →
//              its pieces to the dead letters (sinks/plan/chunk_pieces.h)
//     expire   chunks whose first piece is more than chunk.timeout of stream time
//              (sinks/plan/stream_clock.h) behind: pieces to the dead letters, naming what is
//              missing. Markers that old just go.
//     unlock   the lock rows deleted (their locks held until COMMIT or ROLLBACK)
//     count    pending chunks (sluice_pending_chunks)
//
// Batches without pieces cost nothing once no chunk is known to be pending.
//
// Lifecycle: one per applier (lane). Threading: the applier's.
class chunk_store {
 public:
  // max_bytes: chunk.max.bytes, the most a chunk's fragments may hold in all. dialect: MySQL 8
  // has no DELETE … RETURNING (state_sql.h's delete_returning).
  chunk_store(const state_schema& schema, std::string connector, std::chrono::milliseconds timeout,
              size_t max_bytes = default_max_bytes, sql_dialect dialect = sql_dialect::mariadb());
  static constexpr size_t default_max_bytes = size_t{64} << 20;
  // The longest chunk id pending_fragments holds, in characters.
  static constexpr size_t max_chunk_id_chars = 255;

  // Inside the batch transaction. decoder may be null: completed chunks are then
  // dead-lettered as undecodable.
  chunk_outcome process(connection& conn, const std::vector<chunk_piece>& pieces,
                        timestamp_ns stream_time, chunk_decoder* decoder);
  // Chunks with pieces waiting, as conn sees them.
  size_t count_pending(connection& conn) const;

 private:
  std::vector<const chunk_piece*> storable(const std::vector<chunk_piece>& pieces,
                                           chunk_outcome& out) const;
  void store(connection& conn, const std::vector<const chunk_piece*>& pieces,
             chunk_outcome& out) const;
  void find_conflicts(connection& conn, const std::vector<const chunk_piece*>& pieces,
                      chunk_outcome& out) const;
  std::vector<std::string> expiry_candidates(connection& conn, int64_t before_us) const;
  void lock(connection& conn, const std::vector<std::string>& chunk_ids) const;
  void unlock(connection& conn, const std::vector<std::string>& chunk_ids) const;
  void drop_redeliveries(connection& conn, const std::vector<std::string>& chunk_ids,
                         chunk_outcome& out) const;
  void complete(connection& conn, const std::vector<std::string>& chunk_ids,
                timestamp_ns stream_time, chunk_decoder* decoder, chunk_outcome& out) const;
  void expire(connection& conn, const std::vector<std::string>& chunk_ids, int64_t before_us,
              chunk_outcome& out) const;
  // Bytes one statement may carry (a part of max_allowed_packet, read once).
  size_t packet_budget(connection& conn) const;

  std::string _table;
  std::string _connector;
  sql_dialect _dialect;
  std::chrono::milliseconds _timeout;
  oversized_chunks _oversized;  // after _table and _connector, which it copies
  bool _maybe_pending = true;   // until a count says none are
  mutable size_t _packet_limit = 0;
};

}  // namespace sluice::mdb
