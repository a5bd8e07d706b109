#include "connector/runtime/batch_preparer.h"

#include <chrono>

#include "connector/runtime/stage_factory.h"
#include "core/model/kafka_timestamp.h"

namespace sluice {
namespace {

std::string_view view_of(const void* p, size_t n) {
  return p ? std::string_view(static_cast<const char*>(p), n) : std::string_view();
}

std::string label(const topic_partition& tp, int64_t offset) {
  return tp.topic + "[" + std::to_string(tp.partition.value()) + "]@" + std::to_string(offset);
}

}  // namespace

topic_partition partition_of(const rd_kafka_message_t& m) {
  return {rd_kafka_topic_name(m.rkt), partition_id{m.partition}};
}

raw_message to_raw_message(const rd_kafka_message_t& m) {
  raw_message r;
  r.topic = rd_kafka_topic_name(m.rkt);
  r.partition = partition_id{m.partition};
  r.offset = kafka_offset{m.offset};
  if (m.key) r.key = view_of(m.key, m.key_len);
  if (m.payload) r.value = view_of(m.payload, m.len);
  rd_kafka_headers_t* headers = nullptr;
  if (rd_kafka_message_headers(&m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR && headers) {
    const char* name;
    const void* value;
    size_t size;
    for (size_t i = 0;
         rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
         ++i) {
      r.headers.emplace_back(name, value ? std::optional(view_of(value, size)) : std::nullopt);
    }
  }
  return r;
}

result<timestamp_ns> message_timestamp(const rd_kafka_message_t& m, timestamp_ns now) {
  rd_kafka_timestamp_type_t type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
  const int64_t ms = rd_kafka_message_timestamp(&m, &type);
  result<timestamp_ns> t = kafka_timestamp_ns(ms, now);
  if (!t) {
    // Say whose clock it was: a producer's (CreateTime), or the broker's (LogAppendTime).
    error e = t.err();
    e.message += type == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? " (LogAppendTime, the broker's)"
                                                            : " (CreateTime, the producer's)";
    return e;
  }
  return t;
}

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

batch_preparer::batch_preparer(const config& cfg, table_catalog& catalog,
                               partition_table& partitions, size_t lanes, metrics_registry& metrics)
    : _config(cfg),
      _catalog(catalog),
      _partitions(partitions),
      _lanes(lanes),
      _filter(cfg.tables_include, cfg.tables_exclude),
      _merges(lanes),
      _decode_probe(metrics),
      _merge_probe(metrics) {}

decoder& batch_preparer::decoder_for(const std::string& topic) {
  auto it = _decoders.find(topic);
  if (it == _decoders.end()) {
    it = _decoders.emplace(topic, make_decoder(_config, topic, _catalog, _registry)).first;
  }
  return *it->second;
}

bool batch_preparer::filter_changes(decode_output& out, size_t first) {
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

std::vector<lane_batch> batch_preparer::prepare(raw_batch&& raw) {
  std::vector<lane_batch> lanes(_lanes);
  std::vector<decode_output> decoded(_lanes);
  std::map<topic_partition, std::pair<size_t, kafka_offset>> next;  // lane, next offset
  struct counts {
    uint64_t decoded = 0, dead = 0, filtered = 0;
  };
  std::map<std::string, counts> outcomes;  // by topic
  std::map<topic_partition, partition_table::entry> owned;
  const timestamp_ns now{std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count()};

  for (const kafka_message& m : raw.messages) {
    const topic_partition tp = partition_of(*m);
    if (_poisoned.contains(tp)) continue;
    auto own = owned.find(tp);
    if (own == owned.end()) {
      auto e = _partitions.get(tp);
      if (!e) continue;  // revoked meanwhile: not ours to commit
      own = owned.emplace(tp, *e).first;
    }
    const size_t lane = own->second.lane;
    lane_batch& lb = lanes[lane];
    lb.generation = raw.generation;
    ++lb.messages;
    raw_message r = to_raw_message(*m);
    // An absurd timestamp is bad input like an undecodable value: never converted, never on
    // the batch's clock (the applier's stream time, the end-to-end latency).
    const result<timestamp_ns> stamp = message_timestamp(*m, now);
    if (stamp) {
      r.timestamp = stamp.value();
      lb.message_timestamps.push_back(r.timestamp.value());
      if (r.timestamp > lb.newest_message) lb.newest_message = r.timestamp;
    }
    const size_t first = decoded[lane].changes.size();
    if (auto err = stamp ? decoder_for(tp.topic).decode(r, decoded[lane]) : stamp.err()) {
      std::string reason = std::string(to_string(err->code)) + ": " + err->message;
      if (_config.errors.tolerance == error_tolerance::none) {
        _poisoned.insert(tp);
        lb.poison = "cannot decode " + label(tp, m->offset) + ": " + reason;
        continue;  // commit what came before it, never move past it
      }
      lb.dead_letters.push_back(make_dead_letter(r, std::move(reason)));
      ++outcomes[tp.topic].dead;
    } else if (filter_changes(decoded[lane], first)) {
      ++outcomes[tp.topic].filtered;
    } else {
      ++outcomes[tp.topic].decoded;
    }
    next[tp] = {lane, kafka_offset{m->offset + 1}};
  }
  raw.messages.clear();  // decoded changes own their bytes

  for (const auto& [tp, where] : next) {
    const auto& [lane, offset] = where;
    const auto expected = _partitions.dispatch(tp, offset);
    if (!expected) continue;  // revoked while this batch was decoded: abandoned
    lanes[lane].progress.push_back({tp.topic, tp.partition, owned.at(tp).epoch, *expected, offset});
  }
  for (size_t i = 0; i < _lanes; ++i) {
    lanes[i].merged = _merges[i].merge(std::move(decoded[i].changes));
    lanes[i].catalog = std::move(decoded[i].catalog);
    lanes[i].ddl = std::move(decoded[i].ddl);
    lanes[i].pieces = std::move(decoded[i].pieces);
    for (const table_rows& t : lanes[i].merged.tables) {
      const std::string name = t.table->name.qualified();
      if (t.collapsed) _merge_probe.collapsed(name, t.collapsed);
      if (t.csn_conflicts) _merge_probe.csn_conflicts(name, t.csn_conflicts);
    }
  }
  for (const auto& [topic, n] : outcomes) {
    if (n.decoded) _decode_probe.decoded(topic, n.decoded);
    if (n.dead) _decode_probe.dead_lettered(topic, n.dead);
    if (n.filtered) _decode_probe.filtered(topic, n.filtered);
  }
  return lanes;
}

}  // namespace sluice
