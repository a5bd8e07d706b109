#include "sinks/mariadb/state/chunk_pieces.h"

namespace sluice::mdb {

std::string placeholders(size_t n) {
  std::string out;
  out.reserve(n * 3);
  for (size_t i = 0; i < n; ++i)
    out += i ? ", ?" : "?";
  return out;
}

std::string sql_time_from_us(const std::string& expr) {
  return "TIMESTAMPADD(MICROSECOND, CAST(" + expr + " AS SIGNED), '1970-01-01 00:00:00')";
}

std::string stored_piece_columns(const std::string& payload) {
  return "chunk_id, piece, total_pieces, crc32c, " + payload +
         ", topic, `partition`, kafka_offset, "
         "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', kafka_timestamp)";
}

std::vector<stored_chunk_piece> read_stored_pieces(const result& r) {
  std::vector<stored_chunk_piece> out;
  out.reserve(r.size());
  for (const auto& row : r.rows) {
    stored_chunk_piece s;
    s.piece.chunk_id = row.at(0).value_or("");
    s.piece.index = static_cast<int32_t>(std::stol(row.at(1).value_or("0")));
    s.piece.total_fragments = row.at(2) ? static_cast<int32_t>(std::stol(*row.at(2))) : 0;
    s.crc_text = row.at(3).value_or("");
    if (row.at(4)) s.piece.payload = *row.at(4);
    if (row.at(5)) s.piece.origin.topic = *row.at(5);
    if (row.at(6))
      s.piece.origin.partition = partition_id{static_cast<int32_t>(std::stol(*row.at(6)))};
    if (row.at(7)) s.piece.origin.offset = kafka_offset{std::stoll(*row.at(7))};
    if (row.at(8)) s.piece.origin.timestamp = timestamp_ns{std::stoll(*row.at(8)) * 1000};
    out.push_back(std::move(s));
  }
  sort_stored_pieces(out);
  return out;
}

void mark_chunks_completed(connection& conn, const std::string& table, const std::string& connector,
                           const std::vector<std::string>& ids, timestamp_ns at) {
  if (ids.empty()) return;
  const std::string us = std::to_string(at.value() / 1000);
  std::vector<param> cells;
  cells.reserve(ids.size() * 4);
  for (const std::string& id : ids) {
    cells.push_back(param::text(connector));
    cells.push_back(param::text(id));
    cells.push_back(param::text(us));
    cells.push_back(param::text(us));
  }
  conn.exec_bulk("INSERT INTO " + table +
                     " (connector, chunk_id, piece, payload, kafka_timestamp, first_seen) "
                     "VALUES (?, ?, " +
                     std::to_string(chunk_completed_marker) + ", '', " + sql_time_from_us("?") +
                     ", " + sql_time_from_us("?") + ")",
                 4, cells);
}

}  // namespace sluice::mdb
