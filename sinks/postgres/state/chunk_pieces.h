#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <pqxx/result>
#include <pqxx/transaction_base>

#include "core/model/batch_records.h"
#include "sinks/plan/chunk_pieces.h"

namespace sluice {

// A chunk's pieces as <state schema>.pending_fragments holds them on PostgreSQL: the SQL
// shared by chunk_store and oversized_chunks, which read, delete and mark them in the batch
// transaction (what has no SQL is target-neutral: sinks/plan/chunk_pieces.h).

// SQL for the timestamptz `expr` microseconds after the epoch (Kafka timestamps travel as
// microseconds).
std::string sql_time_from_us(const std::string& expr);

// The rows of a DELETE … RETURNING chunk_id, piece, total_pieces, crc32c, payload, topic,
// partition, kafka_offset, kafka timestamp in µs; sorted by chunk and piece (principal first).
std::vector<stored_chunk_piece> read_stored_pieces(const pqxx::result& r);

// Leaves the completed marker of each chunk of `ids` (a text[] literal) at `at`, so that a
// piece redelivered later is recognised and dropped; it expires after chunk.timeout.
void mark_chunks_completed(pqxx::transaction_base& tx, const std::string& table,
                           const std::string& connector, std::string ids, timestamp_ns at);

}  // namespace sluice
