#include "sinks/postgres/state/chunk_store.h"

#include <algorithm>

#include <pqxx/result>

#include "core/model/crc32c.h"
#include "sinks/postgres/sql/advisory_lock_space.h"
#include "sinks/postgres/sql/pg_array.h"
#include "sinks/postgres/state/chunk_pieces.h"

namespace sluice {

chunk_store::chunk_store(const state_schema& schema, std::string connector,
                         std::chrono::milliseconds timeout, size_t max_bytes)
    : _table(schema.table("pending_fragments")),
      _connector(std::move(connector)),
      _timeout(timeout),
      _oversized(_table, _connector, max_bytes) {}

chunk_outcome chunk_store::process(pqxx::transaction_base& tx,
                                   const std::vector<chunk_piece>& pieces, timestamp_ns stream_time,
                                   chunk_decoder* decoder) {
  chunk_outcome out;
  if (pieces.empty() && !_maybe_pending) return out;
  const std::vector<const chunk_piece*> unique = unique_chunk_pieces(pieces, out);
  store(tx, unique, out);

  const std::vector<std::string> batch_ids = chunk_ids_of(unique);
  const bool expiring = stream_time.value() > 0 && _timeout.count() > 0;
  const int64_t before_us =
      expiring ? stream_time.value() / 1000 - static_cast<int64_t>(_timeout.count()) * 1000 : 0;
  std::vector<std::string> stale;
  if (expiring) stale = expiry_candidates(tx, before_us);

  std::vector<std::string> all = batch_ids;
  all.insert(all.end(), stale.begin(), stale.end());
  lock(tx, all);
  drop_redeliveries(tx, batch_ids, out);
  // Completion first: a chunk whose last piece arrives late but arrives is applied.
  complete(tx, batch_ids, stream_time, decoder, out);
  if (!stale.empty()) expire(tx, stale, before_us, out);

  const pqxx::row n = tx.exec_params1(
      "SELECT count(DISTINCT chunk_id) FILTER (WHERE piece <> $2), count(*) FILTER (WHERE piece = "
      "$2) FROM " +
          _table + " WHERE connector = $1",
      _connector, chunk_completed_marker);
  out.pending = n[0].as<size_t>();
  // Markers expire too; and while this transaction may still roll back, what it removed may
  // come back: look again next time.
  _maybe_pending = *out.pending > 0 || n[1].as<size_t>() > 0 || out.completed || out.expired ||
                   out.redelivered_late;
  return out;
}

size_t chunk_store::count_pending(pqxx::transaction_base& tx) const {
  return tx
      .exec_params1("SELECT count(DISTINCT chunk_id) FROM " + _table +
                        " WHERE connector = $1 AND piece <> $2",
                    _connector, chunk_completed_marker)[0]
      .as<size_t>();
}

void chunk_store::store(pqxx::transaction_base& tx, const std::vector<const chunk_piece*>& pieces,
                        chunk_outcome& out) const {
  if (pieces.empty()) return;
  pg_array ids, index, totals, crcs, payloads, topics, parts, offsets, stamps;
  for (const chunk_piece* p : pieces) {
    ids.add(p->chunk_id);
    index.add_int(p->index);
    if (p->is_principal()) {
      totals.add_int(p->total_fragments);
      crcs.add(std::to_string(p->crc32c));
    } else {
      totals.add_null();
      crcs.add_null();
    }
    payloads.add_bytea(p->payload);
    topics.add(p->origin.topic);
    parts.add_int(p->origin.partition.value());
    offsets.add_int(p->origin.offset.value());
    stamps.add_int(p->origin.timestamp.value() / 1000);
  }
  const std::string input =
      " FROM unnest($2::text[], $3::int4[], $4::int4[], $5::text[], $6::bytea[], $7::text[], "
      "$8::int4[], $9::int8[], $10::int8[]) WITH ORDINALITY "
      "AS u(chunk_id, piece, total, crc, payload, topic, part, off, ts_us, i)";
  const std::string id_array = ids.take(), index_array = index.take(), total_array = totals.take(),
                    crc_array = crcs.take(), payload_array = payloads.take();
  const pqxx::result inserted = tx.exec_params(
      "INSERT INTO " + _table +
          " (connector, chunk_id, piece, total_pieces, crc32c, payload, topic, partition, "
          "kafka_offset, kafka_timestamp, first_seen) SELECT $1, chunk_id, piece, total, crc, "
          "payload, topic, part, off, " +
          sql_time_from_us("ts_us") + ", " + sql_time_from_us("ts_us") + input +
          " ORDER BY chunk_id, piece ON CONFLICT DO NOTHING RETURNING chunk_id, piece",
      _connector, id_array, index_array, total_array, crc_array, payload_array, topics.take(),
      parts.take(), offsets.take(), stamps.take());
  if (inserted.size() == pieces.size()) return;
  // Some were there already: an identical redelivery is a no-op, anything else an error.
  const pqxx::result differing = tx.exec_params(
      "SELECT u.i FROM unnest($2::text[], $3::int4[], $4::int4[], $5::text[], $6::bytea[]) "
      "WITH ORDINALITY AS u(chunk_id, piece, total, crc, payload, i) JOIN " +
          _table +
          " p ON p.connector = $1 AND p.chunk_id = u.chunk_id AND p.piece = u.piece "
          "WHERE CASE WHEN u.piece < 0 THEN (p.total_pieces, p.crc32c) IS DISTINCT FROM "
          "(u.total, u.crc) ELSE p.payload IS DISTINCT FROM u.payload END ORDER BY u.i",
      _connector, id_array, index_array, total_array, crc_array, payload_array);
  for (const pqxx::row& row : differing) {
    out.dead_letters.push_back(conflicting_piece_dead_letter(*pieces[row[0].as<size_t>() - 1]));
  }
}

void chunk_store::drop_redeliveries(pqxx::transaction_base& tx,
                                    const std::vector<std::string>& chunk_ids,
                                    chunk_outcome& out) const {
  if (chunk_ids.empty()) return;
  pg_array ids;
  for (const std::string& id : chunk_ids)
    ids.add(id);
  // Pieces of a chunk that completed already (its marker is there): a redelivery that came
  // late. Their originals are gone, so they cannot be compared: they are dropped.
  const pqxx::result r = tx.exec_params(
      "DELETE FROM " + _table + " p WHERE p.connector = $1 AND p.chunk_id = ANY($2::text[]) " +
          "AND p.piece <> $3 AND EXISTS (SELECT 1 FROM " + _table +
          " m WHERE m.connector = $1 AND m.chunk_id = p.chunk_id AND m.piece = $3)",
      _connector, ids.take(), chunk_completed_marker);
  out.redelivered_late += static_cast<size_t>(r.affected_rows());
}

std::vector<std::string> chunk_store::expiry_candidates(pqxx::transaction_base& tx,
                                                        int64_t before_us) const {
  const pqxx::result r = tx.exec_params("SELECT chunk_id FROM " + _table +
                                            " WHERE connector = $1 GROUP BY chunk_id "
                                            "HAVING min(kafka_timestamp) < " +
                                            sql_time_from_us("$2") + " ORDER BY chunk_id",
                                        _connector, before_us);
  std::vector<std::string> out;
  for (const pqxx::row& row : r)
    out.push_back(row[0].as<std::string>());
  return out;
}

void chunk_store::lock(pqxx::transaction_base& tx,
                       const std::vector<std::string>& chunk_ids) const {
  if (chunk_ids.empty()) return;
  std::vector<int32_t> keys;
  keys.reserve(chunk_ids.size());
  for (const std::string& id : chunk_ids) {
    uint32_t h = crc32c_extend(crc32c(_connector), std::string_view("\0", 1));
    h = crc32c_extend(h, id);
    keys.push_back(static_cast<int32_t>(h));
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  pg_array arr;
  for (int32_t k : keys)
    arr.add_int(k);
  // unnest() yields the array in order: the locks are taken in ascending order.
  tx.exec_params("SELECT count(pg_advisory_xact_lock($1, k)) FROM unnest($2::int4[]) AS k",
                 advisory_lock_space::chunk, arr.take());
}

namespace {
constexpr const char* returning =
    " RETURNING chunk_id, piece, total_pieces, crc32c, payload, topic, partition, kafka_offset, "
    "(extract(epoch FROM kafka_timestamp - 'epoch'::timestamptz) * 1000000)::bigint";
}  // namespace

void chunk_store::complete(pqxx::transaction_base& tx, const std::vector<std::string>& chunk_ids,
                           timestamp_ns stream_time, chunk_decoder* decoder,
                           chunk_outcome& out) const {
  if (chunk_ids.empty()) return;
  pg_array ids;
  for (const std::string& id : chunk_ids)
    ids.add(id);
  // Complete: the principal and every fragment 0..total-1 (under the chunk's lock, so a
  // concurrent writer of the same chunk has committed or waits). With the size of all its
  // fragments: length() of a bytea reads its header, not its bytes, so a chunk too big to
  // reassemble is refused before anything of it is loaded.
  const pqxx::result ready = tx.exec_params(
      "SELECT p.chunk_id, (SELECT coalesce(sum(length(f.payload)), 0) FROM " + _table +
          " f WHERE f.connector = $1 AND f.chunk_id = p.chunk_id AND f.piece >= 0)::int8 FROM " +
          _table +
          " p WHERE p.connector = $1 AND p.chunk_id = ANY($2::text[]) AND p.piece = -1 AND "
          "p.total_pieces = (SELECT count(*) FROM " +
          _table +
          " f WHERE f.connector = $1 AND f.chunk_id = p.chunk_id AND f.piece >= 0 AND "
          "f.piece < p.total_pieces) ORDER BY p.chunk_id",
      _connector, ids.take());
  pg_array fitting;
  size_t fitting_count = 0;
  std::vector<oversized_chunks::sized_chunk> big;
  for (const pqxx::row& row : ready) {
    const int64_t bytes = row[1].as<int64_t>();
    if (_oversized.too_big(bytes)) {
      big.emplace_back(row[0].as<std::string>(), bytes);
    } else {
      fitting.add(row[0].as<std::string>());
      ++fitting_count;
    }
  }
  if (!big.empty()) {
    _oversized.refuse(tx, big, stream_time, out.dead_letters);
    out.completed += big.size();
  }
  if (fitting_count == 0) return;
  const pqxx::result r = tx.exec_params(
      "DELETE FROM " + _table + " WHERE connector = $1 AND chunk_id = ANY($2::text[])" + returning,
      _connector, fitting.take());
  const std::vector<stored_chunk_piece> pieces = read_stored_pieces(r);
  // A marker per completed chunk, so that a piece redelivered later is recognised and dropped
  // (drop_redeliveries) rather than left waiting to expire; it expires after chunk.timeout.
  pg_array done;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (i == 0 || pieces[i].piece.chunk_id != pieces[i - 1].piece.chunk_id) {
      done.add(pieces[i].piece.chunk_id);
    }
  }
  if (!pieces.empty()) {
    mark_chunks_completed(tx, _table, _connector, done.take(), stream_time);
  }
  finish_chunks(pieces, decoder, out);
}

void chunk_store::expire(pqxx::transaction_base& tx, const std::vector<std::string>& chunk_ids,
                         int64_t before_us, chunk_outcome& out) const {
  // Those too big are given up without reading their fragments' bytes.
  const std::vector<oversized_chunks::sized_chunk> big = _oversized.find(tx, chunk_ids);
  if (!big.empty()) {
    _oversized.refuse(tx, big, std::nullopt, out.dead_letters);
    out.expired += big.size();
  }
  pg_array ids;
  for (const std::string& id : chunk_ids) {
    if (std::none_of(big.begin(), big.end(), [&](const auto& b) { return b.first == id; }))
      ids.add(id);
  }
  // Again under the locks: another writer may have completed or extended them meanwhile.
  const pqxx::result r =
      tx.exec_params("DELETE FROM " + _table +
                         " WHERE connector = $1 AND chunk_id IN (SELECT chunk_id FROM " + _table +
                         " WHERE connector = $1 AND chunk_id = ANY($2::text[]) GROUP BY chunk_id "
                         "HAVING min(kafka_timestamp) < " +
                         sql_time_from_us("$3") + ")" + returning,
                     _connector, ids.take(), before_us);
  std::vector<stored_chunk_piece> pieces = read_stored_pieces(r);
  // Markers of completed chunks just go.
  std::erase_if(
      pieces, [](const stored_chunk_piece& s) { return s.piece.index == chunk_completed_marker; });
  expire_chunk_pieces(pieces, _timeout, out);
}

}  // namespace sluice
