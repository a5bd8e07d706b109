#include "sinks/postgres/state/oversized_chunks.h"

#include <pqxx/result>

#include "sinks/postgres/sql/pg_array.h"
#include "sinks/postgres/state/chunk_pieces.h"

namespace sluice {

std::vector<oversized_chunks::sized_chunk> oversized_chunks::find(
    pqxx::transaction_base& tx, const std::vector<std::string>& chunk_ids) const {
  pg_array ids;
  for (const std::string& id : chunk_ids)
    ids.add(id);
  const pqxx::result r = tx.exec_params(
      "SELECT chunk_id, sum(length(payload)) FILTER (WHERE piece >= 0)::int8 FROM " + _table +
          " WHERE connector = $1 AND chunk_id = ANY($2::text[]) GROUP BY chunk_id "
          "HAVING sum(length(payload)) FILTER (WHERE piece >= 0) > $3 ORDER BY chunk_id",
      _connector, ids.take(), static_cast<int64_t>(_max_bytes));
  std::vector<sized_chunk> out;
  for (const pqxx::row& row : r)
    out.emplace_back(row[0].as<std::string>(), row[1].as<int64_t>());
  return out;
}

void oversized_chunks::refuse(pqxx::transaction_base& tx, const std::vector<sized_chunk>& big,
                              std::optional<timestamp_ns> completed_at,
                              std::vector<dead_letter>& dead_letters) const {
  pg_array ids;
  for (const auto& [id, bytes] : big)
    ids.add(id);
  // Every piece goes, read back without a fragment's bytes (a principal's are its record).
  const pqxx::result r = tx.exec_params(
      "DELETE FROM " + _table +
          " WHERE connector = $1 AND chunk_id = ANY($2::text[]) RETURNING chunk_id, piece, "
          "total_pieces, crc32c, CASE WHEN piece = -1 THEN payload END, topic, partition, "
          "kafka_offset, (extract(epoch FROM kafka_timestamp - 'epoch'::timestamptz) * "
          "1000000)::bigint",
      _connector, ids.take());
  std::vector<stored_chunk_piece> pieces = read_stored_pieces(r);
  std::erase_if(
      pieces, [](const stored_chunk_piece& p) { return p.piece.index == chunk_completed_marker; });
  if (completed_at) {
    // Refused complete: a marker as for a chunk completed, so a redelivery is dropped.
    pg_array done;
    for (const auto& [id, bytes] : big)
      done.add(id);
    mark_chunks_completed(tx, _table, _connector, done.take(), *completed_at);
  }
  const std::string limit = std::to_string(_max_bytes);
  for (const auto& [id, bytes] : big) {
    const std::string why =
        "chunk " + id + (completed_at ? "" : " expired incomplete after chunk.timeout and") +
        ": its fragments hold " + std::to_string(bytes) + " bytes, more than chunk.max.bytes (" +
        limit +
        "): not reassembled, the fragments' data is not kept here (it is in Kafka at "
        "their offsets)";
    for (const stored_chunk_piece& s : pieces) {
      if (s.piece.chunk_id != id) continue;
      if (s.piece.is_principal()) {
        dead_letters.push_back(chunk_piece_dead_letter(s.piece, why));
      } else {
        dead_letter d;
        d.kind = dead_letter_kind::chunk;
        d.reason = why + " (fragment " + std::to_string(s.piece.index) + ")";
        d.origin = s.piece.origin;
        dead_letters.push_back(std::move(d));
      }
    }
  }
}

}  // namespace sluice
