#include "sinks/mariadb/state/oversized_chunks.h"

#include "sinks/mariadb/state/chunk_pieces.h"
#include "sinks/mariadb/state/state_sql.h"

namespace sluice::mdb {

namespace {

std::vector<param> id_params(const std::string& connector, const std::vector<chunk_bytes>& big) {
  std::vector<param> out{param::text(connector)};
  for (const auto& [id, bytes] : big)
    out.push_back(param::text(id));
  return out;
}

}  // namespace

std::vector<chunk_bytes> oversized_chunks::find(connection& conn,
                                                const std::vector<std::string>& chunk_ids) const {
  if (chunk_ids.empty()) return {};
  std::vector<param> params{param::text(_connector)};
  for (const std::string& id : chunk_ids)
    params.push_back(param::text(id));
  const std::string limit = std::to_string(_max_bytes);
  params.push_back(param::text(limit));
  const result r = conn.query(
      "SELECT chunk_id, CAST(coalesce(sum(CASE WHEN piece >= 0 THEN length(payload) END), 0) AS "
      "SIGNED) AS bytes FROM " +
          _table + " WHERE connector = ? AND chunk_id IN (" + placeholders(chunk_ids.size()) +
          ") GROUP BY chunk_id HAVING bytes > CAST(? AS SIGNED) ORDER BY chunk_id",
      params);
  std::vector<chunk_bytes> out;
  for (const auto& row : r.rows)
    out.emplace_back(row.at(0).value_or(""), std::stoll(row.at(1).value_or("0")));
  return out;
}

void oversized_chunks::refuse(connection& conn, const std::vector<chunk_bytes>& big,
                              std::optional<timestamp_ns> completed_at,
                              std::vector<dead_letter>& dead_letters) const {
  if (big.empty()) return;
  // Every piece goes (the chunk's lock row stays until the store lets it go), read back
  // without a fragment's bytes (a principal's are its record).
  const result r = delete_returning(conn, _table,
                                    "connector = ? AND chunk_id IN (" + placeholders(big.size()) +
                                        ") AND piece >= " + std::to_string(chunk_completed_marker),
                                    stored_piece_columns("CASE WHEN piece = -1 THEN payload END"),
                                    id_params(_connector, big), _dialect);
  const std::vector<stored_chunk_piece> pieces = read_stored_pieces(r);
  if (completed_at) {
    // Refused complete: a marker as for a chunk completed, so a redelivery is dropped.
    std::vector<std::string> done;
    for (const auto& [id, bytes] : big)
      done.push_back(id);
    mark_chunks_completed(conn, _table, _connector, done, *completed_at);
  }
  oversized_chunk_letters(big, pieces, completed_at.has_value(), _max_bytes, dead_letters);
}

}  // namespace sluice::mdb
