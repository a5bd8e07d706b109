#include "sinks/postgres/state/chunk_pieces.h"

#include <pqxx/binarystring>

namespace sluice {

std::string sql_time_from_us(const std::string& expr) {
  return "('epoch'::timestamptz + (" + expr + ") * interval '1 microsecond')";
}

std::vector<stored_chunk_piece> read_stored_pieces(const pqxx::result& r) {
  std::vector<stored_chunk_piece> out;
  out.reserve(r.size());
  for (const pqxx::row& row : r) {
    stored_chunk_piece s;
    s.piece.chunk_id = row[0].as<std::string>();
    s.piece.index = row[1].as<int32_t>();
    s.piece.total_fragments = row[2].is_null() ? 0 : row[2].as<int32_t>();
    s.crc_text = row[3].is_null() ? std::string() : row[3].as<std::string>();
    if (!row[4].is_null()) s.piece.payload = pqxx::binarystring(row[4]).str();
    if (!row[5].is_null()) s.piece.origin.topic = row[5].as<std::string>();
    if (!row[6].is_null()) s.piece.origin.partition = partition_id{row[6].as<int32_t>()};
    if (!row[7].is_null()) s.piece.origin.offset = kafka_offset{row[7].as<int64_t>()};
    if (!row[8].is_null()) s.piece.origin.timestamp = timestamp_ns{row[8].as<int64_t>() * 1000};
    out.push_back(std::move(s));
  }
  sort_stored_pieces(out);
  return out;
}

void mark_chunks_completed(pqxx::transaction_base& tx, const std::string& table,
                           const std::string& connector, std::string ids, timestamp_ns at) {
  tx.exec_params("INSERT INTO " + table +
                     " (connector, chunk_id, piece, payload, kafka_timestamp, first_seen) "
                     "SELECT $1, id, $3, ''::bytea, " +
                     sql_time_from_us("$4") + ", " + sql_time_from_us("$4") +
                     " FROM unnest($2::text[]) AS id",
                 connector, std::move(ids), chunk_completed_marker, at.value() / 1000);
}

}  // namespace sluice
