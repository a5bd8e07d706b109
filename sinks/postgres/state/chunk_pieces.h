#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <pqxx/result>
#include <pqxx/transaction_base>

#include "core/model/batch_records.h"
#include "core/model/chunk_piece.h"

namespace sluice {

// A chunk's pieces as <state schema>.pending_fragments holds them: the vocabulary shared by
// chunk_store and oversized_chunks, which read, delete and mark them in the batch
// transaction.

// The piece number of a completed chunk's marker (the principal is -1, fragments 0..n-1).
constexpr int32_t chunk_completed_marker = -2;

// SQL for the timestamptz `expr` microseconds after the epoch (Kafka timestamps travel as
// microseconds).
std::string sql_time_from_us(const std::string& expr);

// A piece as read back (and deleted) from the table.
struct stored_chunk_piece {
  chunk_piece piece;
  std::string crc_text;  // principal: the checksum as stored
};

// The rows of a DELETE … RETURNING chunk_id, piece, total_pieces, crc32c, payload, topic,
// partition, kafka_offset, kafka timestamp in µs; sorted by chunk and piece (principal first).
std::vector<stored_chunk_piece> read_stored_pieces(const pqxx::result& r);

// Leaves the completed marker of each chunk of `ids` (a text[] literal) at `at`, so that a
// piece redelivered later is recognised and dropped; it expires after chunk.timeout.
void mark_chunks_completed(pqxx::transaction_base& tx, const std::string& table,
                           const std::string& connector, std::string ids, timestamp_ns at);

// The dead letter for one piece: its origin, its bytes (a fragment as a fragment record).
dead_letter chunk_piece_dead_letter(const chunk_piece& p, std::string reason);

}  // namespace sluice
