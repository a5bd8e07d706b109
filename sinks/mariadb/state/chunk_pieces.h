#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/named_type.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/plan/chunk_pieces.h"

namespace sluice::mdb {

// A chunk's pieces as <state database>.pending_fragments holds them on MariaDB: the SQL
// shared by chunk_store and oversized_chunks, which read, delete and mark them in the batch
// transaction (the model: postgres/state/chunk_pieces.h; what has no SQL is target-neutral:
// sinks/plan/chunk_pieces.h).

// The piece number of a chunk's lock row: inserted (or, if there, updated) in the batch
// transaction to serialize the chunk's writers on an InnoDB row lock, deleted again before
// COMMIT, so that no other transaction ever sees one (chunk_store.h "lock").
constexpr int32_t chunk_lock_piece = -3;

// "?, ?, …": n placeholders, for an IN list.
std::string placeholders(size_t n);

// SQL for the datetime(6) `expr` microseconds after the epoch (UTC: sluice's sessions run with
// time_zone '+00:00'; TIMESTAMPADD does not depend on it).
std::string sql_time_from_us(const std::string& expr);

// What a RETURNING (or SELECT) of a piece reads, in read_stored_pieces()'s order; `payload` is
// the payload's expression (a fragment's bytes may be left out).
std::string stored_piece_columns(const std::string& payload = "payload");

// The rows of stored_piece_columns(); sorted by chunk and piece (principal first).
std::vector<stored_chunk_piece> read_stored_pieces(const result& r);

// Leaves the completed marker of each chunk of `ids` at `at`, so that a piece redelivered
// later is recognised and dropped; it expires after chunk.timeout.
void mark_chunks_completed(connection& conn, const std::string& table, const std::string& connector,
                           const std::vector<std::string>& ids, timestamp_ns at);

}  // namespace sluice::mdb
