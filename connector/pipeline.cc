#include "connector/pipeline.h"

#include <chrono>
#include <stdexcept>
#include <thread>

#include "connector/runtime/log.h"
#include "connector/runtime/stage_factory.h"
#include "sinks/postgres/pg_applier.h"

namespace sluice {
namespace {

using clock_type = std::chrono::steady_clock;

std::string_view view_of(const void* p, size_t n) {
  return p ? std::string_view(static_cast<const char*>(p), n) : std::string_view();
}

topic_partition partition_of(const rd_kafka_message_t& m) {
  return {rd_kafka_topic_name(m.rkt), partition_id{m.partition}};
}

raw_message to_raw(const rd_kafka_message_t& m, std::string_view topic) {
  raw_message r;
  r.topic = topic;
  r.partition = partition_id{m.partition};
  r.offset = kafka_offset{m.offset};
  rd_kafka_timestamp_type_t type;
  const int64_t ms = rd_kafka_message_timestamp(&m, &type);
  r.timestamp = timestamp_ns{ms > 0 ? ms * 1'000'000 : 0};
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

bool starts_from_beginning(const config& c) {
  const auto reset = c.kafka_property("auto.offset.reset").value_or("latest");
  return reset == "earliest" || reset == "smallest" || reset == "beginning";
}

}  // namespace

pipeline::pipeline(const config& cfg) : _config(cfg) {
  for (const auto& [source, table] : cfg.tables) {
    if (!table.primary_key_fields.empty()) _catalog.configure_key(source, table.primary_key_fields);
  }
  _applier = std::make_unique<pg_applier>(cfg.postgres.dsn, make_applier_options(cfg));
}

pipeline::~pipeline() = default;

decoder& pipeline::decoder_for(std::string_view topic) {
  auto it = _decoders.find(topic);
  if (it == _decoders.end()) {
    it = _decoders.emplace(std::string(topic), make_decoder(_config, topic, _catalog)).first;
  }
  return *it->second;
}

std::vector<int64_t> pipeline::on_assigned(const std::vector<topic_partition>& parts) {
  std::map<std::string, std::vector<partition_id>> by_topic;
  for (const topic_partition& tp : parts)
    by_topic[tp.topic].push_back(tp.partition);
  std::map<topic_partition, std::optional<kafka_offset>> start_of;
  for (const auto& [topic, partitions] : by_topic) {
    for (const claimed_partition& claim : _applier->claim(topic, partitions)) {
      const topic_partition tp{topic, claim.partition};
      partition_state& st = _partitions[tp];
      st = partition_state{};
      st.epoch = claim.epoch;
      st.committed = claim.next.value_or(kafka_offset{-1});
      start_of[tp] = claim.next;
      SLUICE_LOG(
          info, "pipeline",
          "claimed " << topic << "[" << tp.partition.value() << "] epoch " << claim.epoch.value()
                     << ", starting at "
                     << (claim.next
                             ? std::to_string(claim.next->value())
                             : _config.kafka_property("auto.offset.reset").value_or("latest")));
    }
  }
  std::vector<int64_t> starts;
  starts.reserve(parts.size());
  for (const topic_partition& tp : parts) {
    const auto& next = start_of.at(tp);
    if (next) {
      starts.push_back(next->value());
    } else {
      starts.push_back(starts_from_beginning(_config) ? RD_KAFKA_OFFSET_BEGINNING
                                                      : RD_KAFKA_OFFSET_END);
    }
  }
  return starts;
}

void pipeline::on_revoked(const std::vector<topic_partition>& parts, bool lost) {
  // Still the owner of revoked partitions: commit what was consumed of them. Lost ones are
  // someone else's already: abandon their work.
  if (!lost && !_batch.empty() && _state.get() != connector_state::failed) flush();
  drop_partitions(parts);
}

void pipeline::drop_partitions(const std::vector<topic_partition>& parts) {
  for (const topic_partition& tp : parts)
    _partitions.erase(tp);
  std::erase_if(_batch, [&](const kafka_message& m) {
    const topic_partition tp = partition_of(*m);
    return !_partitions.contains(tp);
  });
}

bool pipeline::flush() {
  if (_batch.empty()) return true;
  for (int attempt = 0;; ++attempt) {
    if (apply_messages(_batch.size())) break;
    if (attempt > 3) throw std::runtime_error("offsets keep being fenced; giving up the batch");
  }
  _batch.clear();
  _batch_bytes = 0;
  return _state.get() != connector_state::failed;
}

bool pipeline::apply_messages(size_t end) {
  decode_output decoded;
  std::vector<dead_letter> dead;
  std::map<topic_partition, kafka_offset> next;
  std::string poison;
  for (size_t i = 0; i < end; ++i) {
    const rd_kafka_message_t& m = *_batch[i];
    const topic_partition tp = partition_of(m);
    auto st = _partitions.find(tp);
    if (st == _partitions.end() || st->second.fenced) continue;
    const raw_message raw = to_raw(m, tp.topic);
    if (auto err = decoder_for(tp.topic).decode(raw, decoded)) {
      std::string reason = std::string(to_string(err->code)) + ": " + err->message;
      if (_config.errors.tolerance == error_tolerance::none) {
        poison = tp.topic + "[" + std::to_string(tp.partition.value()) + "]@" +
                 std::to_string(m.offset) + ": " + reason;
        break;  // commit everything before it, then stop without moving past it
      }
      dead.push_back(make_dead_letter(raw, std::move(reason)));
    }
    next[tp] = kafka_offset{m.offset + 1};
  }

  std::vector<partition_progress> progress;
  progress.reserve(next.size());
  for (const auto& [tp, offset] : next) {
    const partition_state& st = _partitions.at(tp);
    progress.push_back({tp.topic, tp.partition, st.epoch, st.committed, offset});
  }
  if (!progress.empty()) {
    merged_batch merged = _merge.merge(std::move(decoded.changes));
    try {
      _applier->apply(merged, dead, progress);
    } catch (const stale_epoch_error& e) {
      // Another owner bumped the epoch: fence those partitions and redo the rest.
      SLUICE_LOG(warn, "pipeline", "batch abandoned: " << e.what());
      for (const auto& stored : _applier->read_offsets()) {
        auto st = _partitions.find({stored.topic, stored.partition});
        if (st != _partitions.end() && stored.epoch != st->second.epoch) {
          st->second.fenced = true;
          _consumer->pause({st->first});
          SLUICE_LOG(warn, "pipeline",
                     "fenced " << stored.topic << "[" << stored.partition.value()
                               << "]: owned by epoch " << stored.epoch.value());
        }
      }
      return false;
    }
    for (const partition_progress& p : progress) {
      _partitions.at({p.topic, p.partition}).committed = p.next;
    }
    _consumer->commit_async(progress);
    if (!dead.empty()) {
      SLUICE_LOG(warn, "pipeline",
                 dead.size() << " message(s) dead-lettered; first: " << dead.front().reason);
    }
  }
  if (!poison.empty()) {
    SLUICE_LOG(error, "pipeline", "stopping before a message it cannot use: " << poison);
    _state.fail("cannot decode " + poison);
  }
  return true;
}

int pipeline::run(const std::atomic<bool>& stop_requested) {
  kafka_settings settings;
  settings.properties = _config.kafka;
  settings.topics = _config.topics;
  settings.topics_regex = _config.topics_regex;
  _consumer = std::make_unique<kafka_consumer>(settings, *this);
  _state.set(connector_state::running);
  SLUICE_LOG(info, "pipeline", "running as connector '" << _config.name << "'");

  auto batch_deadline = clock_type::now() + _config.batch.max_time;
  try {
    while (!stop_requested.load() && _state.get() == connector_state::running) {
      const size_t room =
          _config.batch.size > _batch.size() ? _config.batch.size - _batch.size() : 0;
      const auto wait = std::min<std::chrono::milliseconds>(
          std::chrono::milliseconds(100), std::chrono::duration_cast<std::chrono::milliseconds>(
                                              batch_deadline - clock_type::now()));
      const size_t before = _batch.size();
      if (room > 0) {
        _consumer->poll(_batch, room, std::max(wait, std::chrono::milliseconds(0)));
      }
      if (before == 0 && !_batch.empty())
        batch_deadline = clock_type::now() + _config.batch.max_time;
      for (size_t i = before; i < _batch.size(); ++i)
        _batch_bytes += _batch[i]->len + _batch[i]->key_len;
      const bool full =
          _batch.size() >= _config.batch.size || _batch_bytes >= _config.batch.max_bytes;
      if (!_batch.empty() && (full || clock_type::now() >= batch_deadline)) {
        flush();
      }
      if (_batch.empty()) batch_deadline = clock_type::now() + _config.batch.max_time;
    }
    if (_state.get() == connector_state::running) {
      _state.set(connector_state::draining);
      SLUICE_LOG(info, "pipeline", "draining: applying the batch in flight");
      flush();
    }
  } catch (const std::exception& e) {
    SLUICE_LOG(error, "pipeline", "failed: " << e.what());
    _state.fail(e.what());
  }

  if (_state.get() == connector_state::failed) {
    SLUICE_LOG(error, "pipeline", "FAILED: " << _state.reason() << " (waiting to be stopped)");
    _consumer.reset();
    while (!stop_requested.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return 1;
  }
  _consumer->close();
  _state.set(connector_state::stopped);
  SLUICE_LOG(info, "pipeline", "stopped");
  return 0;
}

}  // namespace sluice
