#include "connector/prepare/preparer.h"

#include <chrono>
#include <limits>

namespace sluice {
namespace {

std::string origin_text(const raw_message& m) {
  return std::string(m.topic) + "[" + std::to_string(m.partition.value()) + "]@" +
         std::to_string(m.offset.value());
}

timestamp_ns clock_now() {
  return timestamp_ns{std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count()};
}

}  // namespace

dead_letter make_dead_letter(const raw_message& r, std::string reason) {
  dead_letter d;
  d.reason = std::move(reason);
  d.origin = {std::string(r.topic), r.partition, r.offset, r.timestamp};
  if (r.key) d.key = std::string(*r.key);
  if (r.value) d.value = std::string(*r.value);
  for (const auto& [name, value] : r.headers) {
    d.headers.emplace_back(std::string(name),
                           value ? std::optional(std::string(*value)) : std::nullopt);
  }
  return d;
}

preparer::preparer(const config& c, topic_decoders& decoders, size_t lanes)
    : _config(c),
      _decoders(decoders),
      _filter(c.tables_include, c.tables_exclude),
      _rules(c),
      _lanes(lanes),
      _decoded(lanes),
      _merges(lanes) {}

bool preparer::filter_changes(decode_output& out, size_t first) {
  if (_filter.keeps_all() || out.changes.size() == first) return false;
  size_t kept = first;
  for (size_t i = first; i < out.changes.size(); ++i) {
    if (!_filter.allows(*out.changes[i].table)) continue;
    if (kept != i) std::swap(out.changes[kept], out.changes[i]);
    ++kept;
  }
  const bool all_dropped = kept == first;
  out.truncate_changes(kept);
  return all_dropped;
}

std::optional<std::string> preparer::transform_changes(decode_output& out, size_t first,
                                                       const raw_message& raw, bool& dropped) {
  dropped = false;
  if (_rules.none()) return std::nullopt;  // the common case: no cost
  size_t kept = first;
  for (size_t i = first; i < out.changes.size(); ++i) {
    change& c = out.changes[i];
    auto done = _rules.apply(c, raw);
    if (auto* why = std::get_if<std::string>(&done)) return std::move(*why);
    if (std::get<change_transform::outcome>(done) == change_transform::outcome::drop) continue;
    if (kept != i) std::swap(out.changes[kept], c);
    ++kept;
  }
  dropped = kept == first && out.changes.size() > first;
  out.truncate_changes(kept);
  return std::nullopt;
}

preparer::verdict preparer::refuse(const source_message& m, lane_batch& lane, const error& e) {
  // The source words what it could not read; a rule's error is named by its code.
  std::string reason = m.unreadable ? e.message : std::string(to_string(e.code)) + ": " + e.message;
  _reason = (m.where.empty() ? origin_text(m.raw) : std::string(m.where)) + ": " + reason;
  if (_config.errors.tolerance == error_tolerance::none) return verdict::stop;
  lane.dead_letters.push_back(make_dead_letter(m.raw, std::move(reason)));
  return verdict::dead_lettered;
}

preparer::verdict preparer::add(source_message& m, size_t lane) {
  lane_batch& lb = _lanes[lane];
  decode_output& out = _decoded[lane];
  ++_messages;
  _bytes += (m.raw.key ? m.raw.key->size() : 0) + (m.raw.value ? m.raw.value->size() : 0);
  ++lb.messages;
  if (m.unreadable) return refuse(m, lb, *m.unreadable);

  // The clock an absurd timestamp is checked against: read once per batch (a day's bound
  // does not care).
  if (_messages == 1) _now = clock_now();
  const result<timestamp_ns> stamp = kafka_timestamp_ns(m.timestamp_ms, m.clock, _now);
  if (!stamp) {
    // The dead letter keeps the refused timestamp where a timestamp can hold it (before
    // 2262), whichever source read it, so that the operator sees what was refused.
    constexpr int64_t ns_per_ms = 1'000'000;
    if (m.timestamp_ms > 0 && m.timestamp_ms <= std::numeric_limits<int64_t>::max() / ns_per_ms)
      m.raw.timestamp = timestamp_ns{m.timestamp_ms * ns_per_ms};
    return refuse(m, lb, stamp.err());
  }
  m.raw.timestamp = stamp.value();
  lb.message_timestamps.push_back(stamp.value().value());
  if (stamp.value() > lb.newest_message) lb.newest_message = stamp.value();

  const size_t first = out.changes.size();
  if (auto err = _decoders.for_topic(m.raw.topic).decode(m.raw, out)) return refuse(m, lb, *err);
  // Each change's place in its message: with the offset, the position an appended row is
  // written once by (replayed or redelivered, a message decodes to the same changes).
  for (size_t i = first; i < out.changes.size(); ++i)
    out.changes[i].source.origin.index = static_cast<uint32_t>(i - first);
  if (m.offset_per_record) {
    for (size_t i = first; i < out.changes.size(); ++i) {
      out.changes[i].source.origin.offset =
          kafka_offset{m.raw.offset.value() + static_cast<int64_t>(i - first)};
      // Numbered from 0 in each file: not a position in the topic, nor unique across files.
      out.changes[i].source.origin.index = message_origin::no_index;
    }
  }
  bool dropped = false;
  if (auto why = transform_changes(out, first, m.raw, dropped)) {
    out.truncate_changes(first);  // none of the message's changes enters the batch
    return refuse(m, lb, error{error_code::field_rule, *why});
  }
  // A message whose changes a Filter dropped, or the table filter: its offset moves on.
  if (dropped) return verdict::filtered;
  return filter_changes(out, first) ? verdict::filtered : verdict::decoded;
}

preparer::verdict preparer::add_changes(std::vector<change>& changes, size_t lane) {
  decode_output& out = _decoded[lane];
  ++_messages;
  ++_lanes[lane].messages;
  const size_t first = out.changes.size();
  for (change& c : changes)
    out.changes.push_back(std::move(c));
  changes.clear();
  // No transforms nor field rules: a stored change was stored after them (renamed again, a
  // chain of renames would move twice). Its topic is the one it came on: routed in take().
  return filter_changes(out, first) ? verdict::filtered : verdict::decoded;
}

std::vector<lane_batch> preparer::take() {
  std::vector<lane_batch> lanes(_lanes.size());
  lanes.swap(_lanes);
  for (size_t i = 0; i < lanes.size(); ++i) {
    lanes[i].merged = _merges[i].merge(std::move(_decoded[i].changes));
    // A table is routed by the topic its changes came on as the RegexRouters rename it.
    if (_rules.routes()) {
      for (table_rows& tr : lanes[i].merged.tables)
        tr.topic = std::string(_rules.topic(tr.topic));
    }
    lanes[i].catalog = std::move(_decoded[i].catalog);
    lanes[i].ddl = std::move(_decoded[i].ddl);
    lanes[i].pieces = std::move(_decoded[i].pieces);
    _decoded[i].clear();
  }
  _messages = 0;
  _bytes = 0;
  return lanes;
}

}  // namespace sluice
