#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pqxx/transaction_base>

#include "core/model/batch_records.h"
#include "core/model/chunk_piece.h"
#include "sinks/plan/chunk_pieces.h"
#include "sinks/postgres/session/state_schema.h"
#include "sinks/postgres/state/oversized_chunks.h"

namespace sluice {

// Reassembly of chunked records (Aurora DSQL, SPEC §3) in <state schema>.pending_fragments,
// inside the batch transaction (SPEC §4), so that offsets move past pending pieces and a
// restart, another lane or another instance finds them there:
//
//   process(tx, pieces, stream time):
//     store    pieces, INSERT … ON CONFLICT DO NOTHING (an identical redelivery is a no-op;
//              a fragment with other bytes, or a principal with another total or CRC, is a
//              dead letter)
//     lock     pg_advisory_xact_lock per chunk id (the batch's, and those past chunk.timeout),
//              in ascending order and before any key lock: completion of one chunk is
//              serialized, so two writers holding different pieces cannot both see an
//              incomplete set (the second waits, then sees the first's committed pieces)
//     drop     pieces of chunks that completed before (a marker row, piece -2, stays for
//              chunk.timeout after completion): a late redelivery changes nothing
//     refuse   complete chunks whose fragments hold more than chunk.max.bytes in all
//              (SUM(length(payload)) in SQL, which reads no bytes): deleted unread, leaving
//              the marker; the pieces go to the dead letters without the fragments' bytes
//     complete chunks of the batch with the principal and fragments 0..n-1: read back and
//              delete (leaving the marker), concatenate by index, verify CRC32C, decode
//              (chunk_decoder) → changes; a CRC mismatch or an undecodable image → its
//              pieces to the dead letters
//     expire   chunks whose first piece is more than chunk.timeout of stream time (the
//              newest Kafka timestamp seen, capped at wall time + a minute: stream_clock.h)
//              behind: pieces to the dead letters, naming what is missing (a chunk past
//              chunk.max.bytes without its fragments' bytes); a catch-up after downtime
//              expires nothing it is about to complete. Markers that old just go.
//     count    pending chunks (sluice_pending_chunks)
//
// Batches without pieces cost nothing once no chunk is known to be pending.
//
// Lifecycle: one per applier (lane). Threading: the applier's.
class chunk_store {
 public:
  // max_bytes: chunk.max.bytes, the most a chunk's fragments may hold in all.
  chunk_store(const state_schema& schema, std::string connector, std::chrono::milliseconds timeout,
              size_t max_bytes = default_max_bytes);
  static constexpr size_t default_max_bytes = size_t{64} << 20;

  // decoder may be null: completed chunks are then dead-lettered as undecodable.
  chunk_outcome process(pqxx::transaction_base& tx, const std::vector<chunk_piece>& pieces,
                        timestamp_ns stream_time, chunk_decoder* decoder);
  // Chunks with pieces waiting, as tx sees them.
  size_t count_pending(pqxx::transaction_base& tx) const;

 private:
  void store(pqxx::transaction_base& tx, const std::vector<const chunk_piece*>& pieces,
             chunk_outcome& out) const;
  std::vector<std::string> expiry_candidates(pqxx::transaction_base& tx, int64_t before_us) const;
  void lock(pqxx::transaction_base& tx, const std::vector<std::string>& chunk_ids) const;
  void drop_redeliveries(pqxx::transaction_base& tx, const std::vector<std::string>& chunk_ids,
                         chunk_outcome& out) const;
  void complete(pqxx::transaction_base& tx, const std::vector<std::string>& chunk_ids,
                timestamp_ns stream_time, chunk_decoder* decoder, chunk_outcome& out) const;
  void expire(pqxx::transaction_base& tx, const std::vector<std::string>& chunk_ids,
              int64_t before_us, chunk_outcome& out) const;

  std::string _table;
  std::string _connector;
  std::chrono::milliseconds _timeout;
  oversized_chunks _oversized;  // after _table and _connector, which it copies
  bool _maybe_pending = true;   // until a count says none are
};

}  // namespace sluice
