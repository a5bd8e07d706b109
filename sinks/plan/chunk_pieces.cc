#include "sinks/plan/chunk_pieces.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "core/model/chunk_assembly.h"
#include "core/model/json_text.h"

namespace sluice {

namespace {

bool same_piece(const chunk_piece& a, const chunk_piece& b) {
  // A redelivered principal may differ in processing time (its top-level ts_ns): what must
  // not differ is the chunk it describes.
  if (a.is_principal()) return a.total_fragments == b.total_fragments && a.crc32c == b.crc32c;
  return a.payload == b.payload;
}

std::string piece_name(const chunk_piece& p) {
  return p.is_principal() ? "principal record" : "fragment " + std::to_string(p.index);
}

// "fragments 1, 3-5 of 6" style list of what a chunk lacks.
std::string missing_text(bool have_principal, int32_t total, const std::set<int32_t>& have) {
  std::string out;
  if (!have_principal) out = "the principal record (total unknown)";
  if (total <= 0) {
    if (!have.empty()) out += "; has fragment(s)";
    for (int32_t i : have)
      out += " " + std::to_string(i);
    return out;
  }
  std::string list;
  int32_t missing = 0;
  for (int32_t i = 0; i < total; ++i) {
    if (have.count(i)) continue;
    ++missing;
    if (missing <= 20) list += (list.empty() ? "" : ", ") + std::to_string(i);
  }
  if (missing > 20) list += ", …";
  if (missing) out += "fragment(s) " + list + " of " + std::to_string(total);
  return out;
}

// The end of the chunk that begins at `begin` in sorted pieces.
size_t chunk_end(const std::vector<stored_chunk_piece>& pieces, size_t begin) {
  size_t end = begin;
  while (end < pieces.size() && pieces[end].piece.chunk_id == pieces[begin].piece.chunk_id)
    ++end;
  return end;
}

}  // namespace

void sort_stored_pieces(std::vector<stored_chunk_piece>& pieces) {
  std::sort(pieces.begin(), pieces.end(),
            [](const stored_chunk_piece& a, const stored_chunk_piece& b) {
              return std::tie(a.piece.chunk_id, a.piece.index) <
                     std::tie(b.piece.chunk_id, b.piece.index);
            });
}

dead_letter chunk_piece_dead_letter(const chunk_piece& p, std::string reason) {
  dead_letter d;
  d.reason = std::move(reason);
  d.kind = dead_letter_kind::chunk;
  d.origin = p.origin;
  if (p.is_principal()) {
    d.value = p.payload;
  } else {
    // Only the data was kept: the fragment record is written again around it.
    std::string v = "{\"type\":\"fragment\",\"chunk_id\":";
    append_json_string(v, p.chunk_id);
    v += ",\"index\":" + std::to_string(p.index) + ",\"data\":";
    append_json_string(v, p.payload);
    v += "}";
    d.value = std::move(v);
  }
  return d;
}

std::vector<const chunk_piece*> unique_chunk_pieces(const std::vector<chunk_piece>& pieces,
                                                    chunk_outcome& out) {
  std::vector<const chunk_piece*> sorted;
  sorted.reserve(pieces.size());
  for (const chunk_piece& p : pieces)
    sorted.push_back(&p);
  std::stable_sort(sorted.begin(), sorted.end(), [](const chunk_piece* a, const chunk_piece* b) {
    return std::tie(a->chunk_id, a->index) < std::tie(b->chunk_id, b->index);
  });
  std::vector<const chunk_piece*> unique;
  for (const chunk_piece* p : sorted) {
    if (!unique.empty() && unique.back()->chunk_id == p->chunk_id &&
        unique.back()->index == p->index) {
      if (!same_piece(*unique.back(), *p)) {
        out.dead_letters.push_back(
            chunk_piece_dead_letter(*p, "chunk " + p->chunk_id + ": " + piece_name(*p) +
                                            " delivered again with different content"));
      }
      continue;  // an identical redelivery: nothing to do
    }
    unique.push_back(p);
  }
  return unique;
}

std::vector<std::string> chunk_ids_of(const std::vector<const chunk_piece*>& sorted) {
  std::vector<std::string> ids;
  for (const chunk_piece* p : sorted) {
    if (ids.empty() || ids.back() != p->chunk_id) ids.push_back(p->chunk_id);
  }
  return ids;
}

dead_letter conflicting_piece_dead_letter(const chunk_piece& p) {
  return chunk_piece_dead_letter(p, "chunk " + p.chunk_id + ": " + piece_name(p) +
                                        " delivered again with content different from the "
                                        "pending one");
}

void finish_chunks(const std::vector<stored_chunk_piece>& pieces, chunk_decoder* decoder,
                   chunk_outcome& out) {
  for (size_t begin = 0; begin < pieces.size();) {
    const size_t end = chunk_end(pieces, begin);
    ++out.completed;
    const stored_chunk_piece& principal = pieces[begin];  // piece -1 sorts first
    const std::string& id = principal.piece.chunk_id;
    const auto give_up = [&](const std::string& why) {
      for (size_t i = begin; i < end; ++i) {
        out.dead_letters.push_back(
            chunk_piece_dead_letter(pieces[i].piece, "chunk " + id + ": " + why));
      }
    };
    std::vector<const chunk_piece*> fragments;
    for (size_t i = begin + 1; i < end; ++i)
      fragments.push_back(&pieces[i].piece);
    const result<std::string> image =
        assemble_chunk(principal.piece.total_fragments, principal.crc_text, fragments);
    if (!image) {
      give_up(image.err().message);
    } else if (!decoder) {
      give_up("reassembled, but no decoder for chunked records is configured");
    } else {
      raw_message msg;
      msg.topic = principal.piece.origin.topic;
      msg.partition = principal.piece.origin.partition;
      msg.offset = principal.piece.origin.offset;
      msg.timestamp = principal.piece.origin.timestamp;
      msg.value = principal.piece.payload;
      auto c = decoder->decode_chunked(msg, image.value());
      if (c) {
        out.changes.push_back(std::move(*c));
      } else {
        give_up("reassembled, but " + std::string(to_string(c.err().code)) + ": " +
                c.err().message);
      }
    }
    begin = end;
  }
}

void expire_chunk_pieces(const std::vector<stored_chunk_piece>& pieces,
                         std::chrono::milliseconds timeout, chunk_outcome& out) {
  const auto timeout_text = std::to_string(timeout.count() / 1000) + " s";
  for (size_t begin = 0; begin < pieces.size();) {
    const size_t end = chunk_end(pieces, begin);
    ++out.expired;
    const bool have_principal = pieces[begin].piece.is_principal();
    const int32_t total = have_principal ? pieces[begin].piece.total_fragments : 0;
    std::set<int32_t> have;
    for (size_t i = begin; i < end; ++i) {
      if (!pieces[i].piece.is_principal()) have.insert(pieces[i].piece.index);
    }
    const std::string why = "chunk " + pieces[begin].piece.chunk_id +
                            " expired incomplete after chunk.timeout (" + timeout_text +
                            " of Kafka time): missing " + missing_text(have_principal, total, have);
    for (size_t i = begin; i < end; ++i)
      out.dead_letters.push_back(chunk_piece_dead_letter(pieces[i].piece, why));
    begin = end;
  }
}

void oversized_chunk_letters(const std::vector<chunk_bytes>& big,
                             const std::vector<stored_chunk_piece>& pieces, bool completed,
                             size_t max_bytes, std::vector<dead_letter>& dead_letters) {
  const std::string limit = std::to_string(max_bytes);
  for (const auto& [id, bytes] : big) {
    const std::string why =
        "chunk " + id + (completed ? "" : " expired incomplete after chunk.timeout and") +
        ": its fragments hold " + std::to_string(bytes) + " bytes, more than chunk.max.bytes (" +
        limit +
        "): not reassembled, the fragments' data is not kept here (it is in Kafka at "
        "their offsets)";
    for (const stored_chunk_piece& s : pieces) {
      if (s.piece.chunk_id != id || s.piece.index == chunk_completed_marker) continue;
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
