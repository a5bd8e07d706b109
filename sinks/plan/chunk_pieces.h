#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/batch_records.h"
#include "core/model/chunk_piece.h"

namespace sluice {

// The bookkeeping of chunked records (Aurora DSQL, SPEC §3) that has no SQL, shared by every
// target's chunk store (postgres/state/chunk_store.h, mariadb/state/chunk_store.h): which of
// a batch's pieces to store, what a chunk read back becomes (a change, or its pieces' dead
// letters), and the reasons pieces are given up with. Each store keeps its pieces in its own
// <state schema>.pending_fragments and calls these on what it reads back.
//
// Pure functions: no state, safe from any thread (a chunk_decoder is not: its caller's).

// What one batch's chunk work found: changes to write with the batch, dead letters, counts.
struct chunk_outcome {
  std::vector<change> changes;            // completed chunks, decoded
  std::vector<dead_letter> dead_letters;  // conflicting redeliveries, bad CRC, undecodable, expired
  size_t completed = 0;                   // chunks reassembled (decoded or dead-lettered)
  size_t expired = 0;                     // chunks given up after chunk.timeout
  size_t redelivered_late = 0;            // pieces of chunks completed before: dropped
  std::optional<size_t> pending;          // chunks still pending, when it was looked at
};

// The piece number of a completed chunk's marker (the principal is -1, fragments 0..n-1).
constexpr int32_t chunk_completed_marker = -2;

// A piece as read back (and deleted) from a store.
struct stored_chunk_piece {
  chunk_piece piece;
  std::string crc_text;  // principal: the checksum as stored
};

// A chunk id with the bytes its fragments hold in all.
using chunk_bytes = std::pair<std::string, int64_t>;

// Sorts by chunk and piece (the principal, -1, first; a marker, -2, before it).
void sort_stored_pieces(std::vector<stored_chunk_piece>& pieces);

// The dead letter for one piece: its origin, its bytes (a fragment as a fragment record).
dead_letter chunk_piece_dead_letter(const chunk_piece& p, std::string reason);

// A batch's pieces sorted by chunk and piece, each once: an identical redelivery within the
// batch is dropped, one with other content (a fragment's bytes, a principal's total or CRC)
// is appended to out.dead_letters. The pointers point into `pieces`.
std::vector<const chunk_piece*> unique_chunk_pieces(const std::vector<chunk_piece>& pieces,
                                                    chunk_outcome& out);
// The chunk ids of sorted pieces, each once, in order.
std::vector<std::string> chunk_ids_of(const std::vector<const chunk_piece*>& sorted);
// The dead letter of a piece whose pending copy in the store has other content.
dead_letter conflicting_piece_dead_letter(const chunk_piece& p);

// Completes chunks read back whole (sorted; per chunk its principal, then its fragments; no
// markers): concatenates by index, verifies CRC32C (core/model/chunk_assembly.h), decodes →
// out.changes; a bad chunk, an undecodable image or no decoder → its pieces to
// out.dead_letters. Counts every chunk in out.completed.
void finish_chunks(const std::vector<stored_chunk_piece>& pieces, chunk_decoder* decoder,
                   chunk_outcome& out);
// Gives up chunks read back after chunk.timeout (sorted, no markers): their pieces to
// out.dead_letters, naming what is missing. Counts every chunk in out.expired.
void expire_chunk_pieces(const std::vector<stored_chunk_piece>& pieces,
                         std::chrono::milliseconds timeout, chunk_outcome& out);
// The dead letters of chunks over chunk.max.bytes, from their pieces read back without the
// fragments' bytes (markers ignored): refused complete (completed) or as expired.
void oversized_chunk_letters(const std::vector<chunk_bytes>& big,
                             const std::vector<stored_chunk_piece>& pieces, bool completed,
                             size_t max_bytes, std::vector<dead_letter>& dead_letters);

}  // namespace sluice
