#include "sinks/mariadb/state/chunk_store.h"

#include <algorithm>
#include <tuple>

#include "sinks/mariadb/state/chunk_pieces.h"
#include "sinks/mariadb/state/state_sql.h"

namespace sluice::mdb {

namespace {

// Characters of UTF-8 text (the column's limit counts characters, not bytes).
size_t utf8_chars(std::string_view s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::vector<param> with_ids(const std::string& connector, const std::vector<std::string>& ids) {
  std::vector<param> out;
  out.reserve(ids.size() + 2);
  out.push_back(param::text(connector));
  for (const std::string& id : ids)
    out.push_back(param::text(id));
  return out;
}

}  // namespace

chunk_store::chunk_store(const state_schema& schema, std::string connector,
                         std::chrono::milliseconds timeout, size_t max_bytes, sql_dialect dialect)
    : _table(schema.table("pending_fragments")),
      _connector(std::move(connector)),
      _dialect(dialect),
      _timeout(timeout),
      _oversized(_table, _connector, max_bytes, dialect) {}

chunk_outcome chunk_store::process(connection& conn, const std::vector<chunk_piece>& pieces,
                                   timestamp_ns stream_time, chunk_decoder* decoder) {
  chunk_outcome out;
  if (pieces.empty() && !_maybe_pending) return out;
  const std::vector<const chunk_piece*> unique = storable(pieces, out);
  const std::vector<std::string> batch_ids = chunk_ids_of(unique);

  const bool expiring = stream_time.value() > 0 && _timeout.count() > 0;
  const int64_t before_us =
      expiring ? stream_time.value() / 1000 - static_cast<int64_t>(_timeout.count()) * 1000 : 0;
  std::vector<std::string> stale;
  if (expiring) stale = expiry_candidates(conn, before_us);

  std::vector<std::string> all = batch_ids;
  all.insert(all.end(), stale.begin(), stale.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  lock(conn, all);
  store(conn, unique, out);
  drop_redeliveries(conn, batch_ids, out);
  // Completion first: a chunk whose last piece arrives late but arrives is applied.
  complete(conn, batch_ids, stream_time, decoder, out);
  if (!stale.empty()) expire(conn, stale, before_us, out);
  unlock(conn, all);

  const result n = conn.query(
      "SELECT count(DISTINCT CASE WHEN piece >= -1 THEN chunk_id END), count(CASE WHEN piece = " +
          std::to_string(chunk_completed_marker) + " THEN 1 END) FROM " + _table +
          " WHERE connector = ?",
      std::vector{param::text(_connector)});
  out.pending = std::stoull(n.at(0, 0).value_or("0"));
  // Markers expire too; and while this transaction may still roll back, what it removed may
  // come back: look again next time.
  _maybe_pending = *out.pending > 0 || std::stoull(n.at(0, 1).value_or("0")) > 0 || out.completed ||
                   out.expired || out.redelivered_late;
  return out;
}

size_t chunk_store::count_pending(connection& conn) const {
  return std::stoull(conn.query("SELECT count(DISTINCT chunk_id) FROM " + _table +
                                    " WHERE connector = ? AND piece >= -1",
                                std::vector{param::text(_connector)})
                         .at(0, 0)
                         .value_or("0"));
}

std::vector<const chunk_piece*> chunk_store::storable(const std::vector<chunk_piece>& pieces,
                                                      chunk_outcome& out) const {
  std::vector<const chunk_piece*> unique = unique_chunk_pieces(pieces, out);
  std::erase_if(unique, [&](const chunk_piece* p) {
    if (utf8_chars(p->chunk_id) <= max_chunk_id_chars) return false;
    out.dead_letters.push_back(
        chunk_piece_dead_letter(*p, "chunk id longer than " + std::to_string(max_chunk_id_chars) +
                                        " characters: pending_fragments cannot hold it"));
    return true;
  });
  return unique;
}

size_t chunk_store::packet_budget(connection& conn) const {
  if (_packet_limit == 0) {
    _packet_limit = std::stoull(conn.query("SELECT @@max_allowed_packet").at(0, 0).value_or("0"));
    if (_packet_limit == 0) _packet_limit = size_t{1} << 20;
  }
  return _packet_limit / 2;
}

void chunk_store::store(connection& conn, const std::vector<const chunk_piece*>& pieces,
                        chunk_outcome& out) const {
  if (pieces.empty()) return;
  // INSERT IGNORE skips the keys there already; the values themselves cannot be cut short
  // (chunk ids are checked above, topics are Kafka's ≤ 249, the rest are numbers).
  const std::string sql =
      "INSERT IGNORE INTO " + _table +
      " (connector, chunk_id, piece, total_pieces, crc32c, payload, topic, `partition`, "
      "kafka_offset, kafka_timestamp, first_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, " +
      sql_time_from_us("?") + ", " + sql_time_from_us("?") + ")";
  constexpr size_t width = 11;
  const size_t budget = packet_budget(conn);
  // The cells point into these (reserved: never moved).
  std::vector<std::string> numbers;
  numbers.reserve(pieces.size() * 7);
  std::vector<param> cells;
  size_t bytes = 0;
  uint64_t inserted = 0;
  const auto flush = [&] {
    if (cells.empty()) return;
    inserted += conn.exec_bulk(sql, width, cells);
    cells.clear();
    bytes = 0;
  };
  const auto number = [&](int64_t v) {
    return param::text(numbers.emplace_back(std::to_string(v)));
  };
  for (const chunk_piece* p : pieces) {
    const size_t size = p->payload.size() + p->chunk_id.size() + p->origin.topic.size() + 128;
    if (bytes + size > budget) flush();
    bytes += size;
    cells.push_back(param::text(_connector));
    cells.push_back(param::text(p->chunk_id));
    cells.push_back(number(p->index));
    if (p->is_principal()) {
      cells.push_back(number(p->total_fragments));
      cells.push_back(number(p->crc32c));
    } else {
      cells.push_back(param::null());
      cells.push_back(param::null());
    }
    cells.push_back(param::bytes(p->payload));
    cells.push_back(param::text(p->origin.topic));
    cells.push_back(number(p->origin.partition.value()));
    cells.push_back(number(p->origin.offset.value()));
    cells.push_back(number(p->origin.timestamp.value() / 1000));
    cells.push_back(number(p->origin.timestamp.value() / 1000));
  }
  flush();
  // Some were there already: an identical redelivery is a no-op, anything else an error.
  if (inserted < pieces.size()) find_conflicts(conn, pieces, out);
}

void chunk_store::find_conflicts(connection& conn, const std::vector<const chunk_piece*>& pieces,
                                 chunk_outcome& out) const {
  const size_t budget = packet_budget(conn);
  std::vector<std::string> numbers;
  numbers.reserve(pieces.size() * 3);
  for (size_t begin = 0; begin < pieces.size();) {
    std::string sql = "SELECT chunk_id, piece FROM " + _table + " WHERE connector = ? AND (";
    std::vector<param> params{param::text(_connector)};
    size_t bytes = 0;
    size_t end = begin;
    for (; end < pieces.size(); ++end) {
      const chunk_piece& p = *pieces[end];
      const size_t size = p.payload.size() + p.chunk_id.size() + 64;
      if (end > begin && bytes + size > budget) break;
      bytes += size;
      sql += end > begin ? " OR " : "";
      params.push_back(param::text(p.chunk_id));
      params.push_back(param::text(numbers.emplace_back(std::to_string(p.index))));
      if (p.is_principal()) {
        // A principal may differ in processing time; the chunk it describes may not.
        sql += "(chunk_id = ? AND piece = ? AND NOT (total_pieces <=> ? AND crc32c <=> ?))";
        params.push_back(param::text(numbers.emplace_back(std::to_string(p.total_fragments))));
        params.push_back(param::text(numbers.emplace_back(std::to_string(p.crc32c))));
      } else {
        sql += "(chunk_id = ? AND piece = ? AND NOT (payload <=> ?))";
        params.push_back(param::bytes(p.payload));
      }
    }
    sql += ")";
    const result r = conn.query(sql, params);
    for (const auto& row : r.rows) {
      const std::string id = row.at(0).value_or("");
      const int32_t index = static_cast<int32_t>(std::stol(row.at(1).value_or("0")));
      const auto it =
          std::lower_bound(pieces.begin() + static_cast<std::ptrdiff_t>(begin),
                           pieces.begin() + static_cast<std::ptrdiff_t>(end), std::tie(id, index),
                           [](const chunk_piece* p, const auto& key) {
                             return std::tie(p->chunk_id, p->index) < key;
                           });
      if (it != pieces.end() && (*it)->chunk_id == id && (*it)->index == index) {
        out.dead_letters.push_back(conflicting_piece_dead_letter(**it));
      }
    }
    begin = end;
  }
}

void chunk_store::lock(connection& conn, const std::vector<std::string>& chunk_ids) const {
  if (chunk_ids.empty()) return;
  std::vector<param> cells;
  cells.reserve(chunk_ids.size() * 2);
  for (const std::string& id : chunk_ids) {
    cells.push_back(param::text(_connector));
    cells.push_back(param::text(id));
  }
  // In ascending order (array binding runs the rows in order): two writers never wait on
  // each other's chunks in a cycle.
  conn.exec_bulk("INSERT INTO " + _table + " (connector, chunk_id, piece, payload) VALUES (?, ?, " +
                     std::to_string(chunk_lock_piece) +
                     ", '') ON DUPLICATE KEY UPDATE payload = payload",
                 2, cells);
}

void chunk_store::unlock(connection& conn, const std::vector<std::string>& chunk_ids) const {
  if (chunk_ids.empty()) return;
  conn.exec("DELETE FROM " + _table +
                " WHERE connector = ? AND piece = " + std::to_string(chunk_lock_piece) +
                " AND chunk_id IN (" + placeholders(chunk_ids.size()) + ")",
            with_ids(_connector, chunk_ids));
}

void chunk_store::drop_redeliveries(connection& conn, const std::vector<std::string>& chunk_ids,
                                    chunk_outcome& out) const {
  if (chunk_ids.empty()) return;
  // Pieces of a chunk that completed already (its marker is there): a redelivery that came
  // late. Their originals are gone, so they cannot be compared: they are dropped.
  out.redelivered_late += static_cast<size_t>(
      conn.exec("DELETE p FROM " + _table + " p JOIN " + _table +
                    " m ON m.connector = p.connector AND m.chunk_id = p.chunk_id AND m.piece = " +
                    std::to_string(chunk_completed_marker) +
                    " WHERE p.connector = ? AND p.piece >= -1 AND p.chunk_id IN (" +
                    placeholders(chunk_ids.size()) + ")",
                with_ids(_connector, chunk_ids)));
}

std::vector<std::string> chunk_store::expiry_candidates(connection& conn, int64_t before_us) const {
  const std::string before = std::to_string(before_us);
  const result r = conn.query("SELECT chunk_id FROM " + _table +
                                  " WHERE connector = ? GROUP BY chunk_id "
                                  "HAVING min(kafka_timestamp) < " +
                                  sql_time_from_us("?") + " ORDER BY chunk_id",
                              std::vector{param::text(_connector), param::text(before)});
  std::vector<std::string> out;
  for (const auto& row : r.rows)
    out.push_back(row.at(0).value_or(""));
  return out;
}

void chunk_store::complete(connection& conn, const std::vector<std::string>& chunk_ids,
                           timestamp_ns stream_time, chunk_decoder* decoder,
                           chunk_outcome& out) const {
  if (chunk_ids.empty()) return;
  // Complete: the principal and every fragment 0..total-1 (under the chunk's lock, so a
  // concurrent writer of the same chunk has committed or waits). With the size of all its
  // fragments, so that a chunk too big to reassemble is refused before any of it is read.
  const result ready = conn.query(
      "SELECT p.chunk_id, CAST((SELECT coalesce(sum(length(f.payload)), 0) FROM " + _table +
          " f WHERE f.connector = p.connector AND f.chunk_id = p.chunk_id AND f.piece >= 0) AS "
          "SIGNED) FROM " +
          _table + " p WHERE p.connector = ? AND p.chunk_id IN (" + placeholders(chunk_ids.size()) +
          ") AND p.piece = -1 AND p.total_pieces = (SELECT count(*) FROM " + _table +
          " f WHERE f.connector = p.connector AND f.chunk_id = p.chunk_id AND f.piece >= 0 AND "
          "f.piece < p.total_pieces) ORDER BY p.chunk_id",
      with_ids(_connector, chunk_ids));
  std::vector<std::string> fitting;
  std::vector<chunk_bytes> big;
  for (const auto& row : ready.rows) {
    const int64_t bytes = std::stoll(row.at(1).value_or("0"));
    if (_oversized.too_big(bytes)) {
      big.emplace_back(row.at(0).value_or(""), bytes);
    } else {
      fitting.push_back(row.at(0).value_or(""));
    }
  }
  if (!big.empty()) {
    _oversized.refuse(conn, big, stream_time, out.dead_letters);
    out.completed += big.size();
  }
  if (fitting.empty()) return;
  const result r = delete_returning(
      conn, _table,
      "connector = ? AND chunk_id IN (" + placeholders(fitting.size()) + ") AND piece >= -1",
      stored_piece_columns(), with_ids(_connector, fitting), _dialect);
  const std::vector<stored_chunk_piece> pieces = read_stored_pieces(r);
  // A marker per completed chunk, so that a piece redelivered later is recognised and dropped
  // (drop_redeliveries) rather than left waiting to expire; it expires after chunk.timeout.
  std::vector<std::string> done;
  for (const stored_chunk_piece& s : pieces) {
    if (done.empty() || done.back() != s.piece.chunk_id) done.push_back(s.piece.chunk_id);
  }
  mark_chunks_completed(conn, _table, _connector, done, stream_time);
  finish_chunks(pieces, decoder, out);
}

void chunk_store::expire(connection& conn, const std::vector<std::string>& chunk_ids,
                         int64_t before_us, chunk_outcome& out) const {
  // Those too big are given up without reading their fragments' bytes.
  const std::vector<chunk_bytes> big = _oversized.find(conn, chunk_ids);
  if (!big.empty()) {
    _oversized.refuse(conn, big, std::nullopt, out.dead_letters);
    out.expired += big.size();
  }
  std::vector<std::string> ids;
  for (const std::string& id : chunk_ids) {
    if (std::none_of(big.begin(), big.end(), [&](const auto& b) { return b.first == id; }))
      ids.push_back(id);
  }
  if (ids.empty()) return;
  // Again under the locks: another writer may have completed or extended them meanwhile.
  std::vector<param> params = with_ids(_connector, ids);
  const std::string before = std::to_string(before_us);
  params.push_back(param::text(before));
  const result still = conn.query(
      "SELECT chunk_id FROM " + _table + " WHERE connector = ? AND chunk_id IN (" +
          placeholders(ids.size()) + ") GROUP BY chunk_id HAVING min(kafka_timestamp) < " +
          sql_time_from_us("?") + " ORDER BY chunk_id",
      params);
  std::vector<std::string> expiring;
  for (const auto& row : still.rows)
    expiring.push_back(row.at(0).value_or(""));
  if (expiring.empty()) return;
  const result r =
      delete_returning(conn, _table,
                       "connector = ? AND chunk_id IN (" + placeholders(expiring.size()) +
                           ") AND piece >= " + std::to_string(chunk_completed_marker),
                       stored_piece_columns(), with_ids(_connector, expiring), _dialect);
  std::vector<stored_chunk_piece> pieces = read_stored_pieces(r);
  // Markers of completed chunks just go.
  std::erase_if(
      pieces, [](const stored_chunk_piece& s) { return s.piece.index == chunk_completed_marker; });
  expire_chunk_pieces(pieces, _timeout, out);
}

}  // namespace sluice::mdb
