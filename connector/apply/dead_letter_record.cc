#include "connector/apply/dead_letter_record.h"

#include <algorithm>
#include <cstdint>

namespace sluice {
namespace {

using header = dead_letter_record::header;

// A v2 record's framing at its widest: length, attributes, timestamp and offset deltas, key
// and value lengths, header count (varints).
constexpr size_t record_framing = 5 + 1 + 10 + 5 + 5 + 5 + 5;
// A header's name and value lengths (varints).
constexpr size_t header_framing = 5 + 5;
// The most the two truncation headers take: a 20-digit size, every part named.
constexpr std::string_view all_parts = "value,headers,key,reason";
constexpr size_t truncation_reserve = 2 * header_framing + dead_letter_header::truncated.size() +
                                      20 + dead_letter_header::truncated_part.size() +
                                      all_parts.size();

size_t header_size(const header& h) {
  return header_framing + h.name.size() + (h.value ? h.value->size() : 0);
}

// How much of `size` bytes to keep in `room` bytes.
size_t keep_of(int64_t room, size_t size) {
  return room <= 0 ? 0 : std::min(size, static_cast<size_t>(room));
}

}  // namespace

size_t dead_letter_record::size() const {
  size_t n = record_framing + (key ? key->size() : 0) + (value ? value->size() : 0);
  for (const header& h : headers)
    n += header_size(h);
  return n;
}

dead_letter_record make_dead_letter_record(const dead_letter& letter, std::string_view connector,
                                           size_t budget) {
  namespace name = dead_letter_header;
  const std::string partition = std::to_string(letter.origin.partition.value());
  const std::string offset = std::to_string(letter.origin.offset.value());
  // sluice's and Connect's headers; the reason's two copies are filled in at the end.
  std::vector<header> ours = {{std::string(name::reason), std::string()},
                              {std::string(name::topic), letter.origin.topic},
                              {std::string(name::partition), partition},
                              {std::string(name::offset), offset},
                              {std::string(name::kind), std::string(to_string(letter.kind))},
                              {std::string(name::connect_topic), letter.origin.topic},
                              {std::string(name::connect_partition), partition},
                              {std::string(name::connect_offset), offset}};
  if (!letter.target_table.empty()) {
    ours.push_back({std::string(name::target), letter.target_schema + "." + letter.target_table});
  }
  if (!connector.empty())
    ours.push_back({std::string(name::connect_connector), std::string(connector)});
  ours.push_back(
      {std::string(name::connect_exception_class), std::string(name::exception_class_value)});
  ours.push_back({std::string(name::connect_exception_message), std::string()});

  size_t fixed = record_framing;
  for (const header& h : ours)
    fixed += header_size(h);
  size_t originals = 0;       // the original headers, framed
  size_t original_bytes = 0;  // …and their names and values alone
  for (const auto& [n, v] : letter.headers) {
    originals += header_framing + n.size() + (v ? v->size() : 0);
    original_bytes += n.size() + (v ? v->size() : 0);
  }
  const size_t reason_size = letter.reason.size();
  const size_t key_size = letter.key ? letter.key->size() : 0;
  const size_t value_size = letter.value ? letter.value->size() : 0;

  size_t keep_reason = reason_size, keep_key = key_size, keep_value = value_size;
  bool keep_headers = true;
  if (fixed + 2 * reason_size + originals + key_size + value_size > budget) {
    // What the reason's copies, the original headers, the key and the value share. The
    // reason is cut only when nothing else is left to cut.
    const int64_t room_all =
        static_cast<int64_t>(budget) - static_cast<int64_t>(fixed + truncation_reserve);
    keep_reason = keep_of(room_all / 2, reason_size);
    const int64_t room = room_all - static_cast<int64_t>(2 * keep_reason);
    keep_headers = static_cast<int64_t>(key_size + originals) <= room;
    const int64_t after_headers = room - static_cast<int64_t>(keep_headers ? originals : 0);
    keep_key = keep_of(after_headers, key_size);
    keep_value = keep_of(after_headers - static_cast<int64_t>(keep_key), value_size);
  }

  std::string parts;
  size_t cut_bytes = 0;
  const auto cut = [&](std::string_view part, size_t original_size) {
    if (!parts.empty()) parts += ',';
    parts += part;
    cut_bytes += original_size;
  };
  if (keep_value < value_size) cut("value", value_size);
  if (!keep_headers && !letter.headers.empty()) cut("headers", original_bytes);
  if (keep_key < key_size) cut("key", key_size);
  if (keep_reason < reason_size) cut("reason", reason_size);

  dead_letter_record r;
  if (letter.key) r.key = std::string_view(*letter.key).substr(0, keep_key);
  if (letter.value) r.value = std::string_view(*letter.value).substr(0, keep_value);
  r.headers.reserve((keep_headers ? letter.headers.size() : 0) + ours.size() + 2);
  if (keep_headers) {
    for (const auto& [n, v] : letter.headers)
      r.headers.push_back({n, v});
  }
  const std::string reason = letter.reason.substr(0, keep_reason);
  ours.front().value = reason;
  ours.back().value = reason;
  for (header& h : ours)
    r.headers.push_back(std::move(h));
  if (!parts.empty()) {
    r.headers.push_back({std::string(name::truncated), std::to_string(cut_bytes)});
    r.headers.push_back({std::string(name::truncated_part), std::move(parts)});
  }
  return r;
}

}  // namespace sluice
