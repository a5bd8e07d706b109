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
  const std::vector<stored_chunk_piece> pieces = read_stored_pieces(r);
  if (completed_at) {
    // Refused complete: a marker as for a chunk completed, so a redelivery is dropped.
    pg_array done;
    for (const auto& [id, bytes] : big)
      done.add(id);
    mark_chunks_completed(tx, _table, _connector, done.take(), *completed_at);
  }
  oversized_chunk_letters(big, pieces, completed_at.has_value(), _max_bytes, dead_letters);
}

}  // namespace sluice
