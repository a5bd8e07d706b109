#include "connector/drive/pipeline.h"

#include <chrono>
#include <functional>
#include <stdexcept>
#include <tuple>

#include "connector/apply/dead_letter_producer.h"
#include "connector/base/log.h"
#include "connector/base/sink_options.h"
#include "connector/config/redact.h"
#include "connector/prepare/stage_factory.h"
#include "connector/registry/connector_schema_source.h"
#include "schemas/goldengate/goldengate_metadata.h"

namespace sluice {
namespace {

using clock_type = std::chrono::steady_clock;

// How long a closed batch may wait for the prepare stage before the partitions are paused.
constexpr auto k_pause_after = std::chrono::seconds(1);

bool starts_from_beginning(const config& c) {
  const auto reset = c.kafka_property("auto.offset.reset").value_or("latest");
  return reset == "earliest" || reset == "smallest" || reset == "beginning";
}

}  // namespace

pipeline::pipeline(const config& cfg, metrics_registry& metrics)
    : _config(cfg),
      _state_probe(metrics),
      _state([this](connector_state s) { _state_probe.set(s); },
             [this](const std::string& dependency, bool on) {
               _state_probe.degraded(dependency, on);
             }),
      _consumer_probe(metrics),
      _apply_probe(metrics),
      _chunk_probe(metrics),
      _tombstone_probe(metrics),
      _failed_tables(metrics),
      _target_probe(metrics),
      _health(_state, _target_probe, _apply_probe, target_of(cfg)) {
  for (const auto& [source, table] : cfg.tables) {
    if (!table.primary_key_fields.empty()) _catalog.configure_key(source, table.primary_key_fields);
  }
  _target = make_target(cfg);
  const sink::target& sessions = *_target;
  const retry_policy policy = make_retry_policy(cfg);
  apply_options options = make_applier_options(cfg);
  options.chunk_decoders = chunk_decoder_factory(cfg, &_health);
  // The prepare thread's lookups give up when the batch they decode for is abandoned.
  _key_lookup = std::make_unique<target_key_lookup>(
      sessions, policy, options.routing, &_health,
      [this] { return _preparing.load() >= _generation.load(); });
  _key_lookup->prepare_as(cfg);
  _catalog.set_key_resolver([this](const table_name& source, std::string_view topic) {
    return (*_key_lookup)(source, topic);
  });
  owner_worker::callbacks owner_cb;
  owner_cb.chunks_counted = [this](uint64_t n) { _chunk_probe.pending(n); };
  owner_cb.failed = [this](const std::string& why) { fail(why); };
  _owner = std::make_unique<owner_worker>(sessions, policy, cfg.name, &_health, owner_cb);
  if (!cfg.errors.dead_letter_topic.empty()) {
    dead_letter_producer_options dlq_options;
    dlq_options.connector = cfg.name;
    dlq_options.on_health = [this](const std::string& why) {
      _state.degrade("dead-letter queue", why);
    };
    _dlq = std::make_unique<dead_letter_producer>(cfg.kafka, cfg.errors.dead_letter_topic,
                                                  std::move(dlq_options));
  }
  _janitor =
      std::make_unique<tombstone_janitor>(sessions, policy, &_health, cfg.tombstone_retention,
                                          [this](size_t kept) { _tombstone_probe.kept(kept); });
  const size_t lanes = static_cast<size_t>(std::max(1, cfg.apply_lanes));
  _preparer = std::make_unique<batch_preparer>(cfg, _catalog, _partitions, lanes, metrics);
  for (size_t i = 0; i < lanes; ++i) {
    apply_lane::callbacks cb;
    cb.current_generation = [this] { return _generation.load(); };
    cb.applied = [this](const lane_batch& b, const apply_stats& stats, double seconds) {
      if (_consumer) _consumer->commit_async(b.progress);
      observe_applied(b, stats, seconds);
      if (!b.dead_letters.empty()) {
        SLUICE_LOG(warn, "pipeline",
                   b.dead_letters.size()
                       << " message(s) dead-lettered; first: " << b.dead_letters.front().reason);
      }
    };
    cb.stale = [this](const std::string&) { _resync_requested = true; };
    cb.failed = [this](const std::string& why) {
      fail(why);  // the first failure is kept
    };
    cb.done = [this] {
      finished_one();
      _lag_stale = true;
    };
    _lanes.push_back(std::make_unique<apply_lane>(i, sessions, policy, options, &_health,
                                                  _partitions, _dlq.get(), std::move(cb),
                                                  /*queue_capacity=*/1));
  }
}

pipeline::~pipeline() {
  _janitor->stop();
  _owner->stop();
  _prepare_queue.close();
  if (_prepare_thread.joinable()) _prepare_thread.join();
  for (auto& lane : _lanes)
    lane->stop();
}

size_t pipeline::lane_of(const topic_partition& tp) const {
  return (std::hash<std::string>{}(tp.topic) + static_cast<size_t>(tp.partition.value())) %
         _lanes.size();
}

int64_t pipeline::start_offset(const topic_partition& tp,
                               std::optional<kafka_offset> stored) const {
  if (stored) return stored->value();
  if (const auto taken = _takeover.start(tp)) return *taken;
  return starts_from_beginning(_config) ? RD_KAFKA_OFFSET_BEGINNING : RD_KAFKA_OFFSET_END;
}

void pipeline::observe_applied(const lane_batch& b, const apply_stats& stats, double seconds) {
  size_t rows = 0;
  const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  // What the database did, per source table: rows written, deleted, refused as stale.
  for (const table_apply_stats& t : stats.tables) {
    if (!t.table) continue;
    const std::string name = t.table->name.qualified();
    if (t.written) _apply_probe.applied(name, t.written);
    if (t.deleted) _apply_probe.deleted(name, t.deleted);
    if (t.stale) _apply_probe.stale(name, t.stale);
    if (t.missing) {
      // insert.mode update makes no row: each change of a row the table lacks is counted, and
      // said once per table and batch, so that a wrong mode or target is seen.
      _apply_probe.missing(name, t.missing);
      SLUICE_LOG(warn, "apply",
                 t.target << ": " << t.missing
                          << " change(s) of rows the table does not hold, not made "
                             "(insert.mode: update)");
    }
  }
  for (const table_rows& t : b.merged.tables) {
    rows += t.rows.size() + t.keyless.size();
    if (t.newest_source_ts.value() > 0) {
      _apply_probe.replication_lag(t.table->name.qualified(),
                                   (now_ns - t.newest_source_ts.value()) / 1e9);
    }
  }
  _apply_probe.batch(rows, seconds);
  _failed_tables.observe(stats, now_ns / 1'000'000);
  if (stats.pending_chunks >= 0) _chunk_probe.pending(static_cast<uint64_t>(stats.pending_chunks));
  _apply_probe.end_to_end(b.message_timestamps, now_ns);
}

void pipeline::finished_one() {
  std::lock_guard lock(_idle_mutex);
  --_in_flight;
  _idle_cv.notify_all();
}

bool pipeline::idle() {
  std::lock_guard lock(_idle_mutex);
  return _in_flight == 0;
}

bool pipeline::settle() {
  bool kept = true;
  std::unique_lock lock(_idle_mutex);
  while (
      !_idle_cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return _in_flight == 0; })) {
    if (kept && (cannot_commit() || _state.get() == connector_state::failed)) {
      // PostgreSQL is away: what is in flight cannot commit now. Let it go (the lanes stop
      // retrying it) rather than hold the consumer thread for the length of the outage.
      lock.unlock();
      abandon_in_flight();
      kept = false;
      lock.lock();
    }
  }
  return kept;
}

void pipeline::abandon_in_flight() {
  ++_generation;  // the lanes give up their batches; the prepare stage drops its input
  _batch.clear();
  _batch_bytes = 0;
  drop_held();
  if (_state.get() != connector_state::failed) _resync_requested = true;
  SLUICE_LOG(warn, "pipeline",
             "nothing in flight can commit now ("
                 << (degraded() ? std::string(target_name()) + " unreachable"
                     : _state.get() == connector_state::failed
                         ? "the connector failed"
                         : "a statement stalled, or the dead-letter topic unwritable")
                 << "): the batches in flight are abandoned, to be consumed again");
}

void pipeline::prepare_loop() {
  while (auto raw = _prepare_queue.pop()) {
    if (raw->generation >= _generation.load() && _state.get() != connector_state::failed &&
        !_registry_stopped) {
      _preparing = raw->generation;
      try {
        std::vector<lane_batch> batches = _preparer->prepare(std::move(*raw));
        for (size_t i = 0; i < batches.size(); ++i) {
          if (batches[i].progress.empty() && batches[i].poison.empty()) continue;
          {
            std::lock_guard lock(_idle_mutex);
            ++_in_flight;
          }
          if (!_lanes[i]->submit(std::move(batches[i]))) finished_one();
        }
      } catch (const schema_source_stopped&) {
        // Stopped while the registry was away: this batch and every later one are dropped
        // unapplied (a later one would commit offsets past this one's), to be consumed
        // again after the restart.
        _registry_stopped = true;
        SLUICE_LOG(info, "pipeline", "stopped while waiting for the schema registry");
      } catch (const schema_source_refused& e) {
        SLUICE_LOG(error, "pipeline", "schema registry: " << e.what());
        fail(std::string("schema registry: ") + e.what());
      } catch (const std::exception& e) {
        SLUICE_LOG(error, "pipeline", "prepare failed: " << e.what());
        fail(e.what());
      }
    }
    finished_one();  // the raw batch itself
  }
}

void pipeline::dispatch(bool wait) {
  if (wait && !push_held_blocking()) return;
  if (_batch.empty()) return;
  if (_held) return;  // the caller polls on: the held batch goes first (bounded by its room)
  _held = raw_batch{_generation.load(), std::move(_batch)};
  _held_since = clock_type::now();
  _batch.clear();
  _batch_bytes = 0;
  {
    std::lock_guard lock(_idle_mutex);
    ++_in_flight;
  }
  if (wait) {
    push_held_blocking();
  } else {
    push_held(std::chrono::milliseconds(0));
  }
}

bool pipeline::push_held(std::chrono::milliseconds wait) {
  if (!_held) return true;
  if (!_prepare_queue.try_push_for(*_held, wait)) {
    if (_held_back.empty() && clock_type::now() - _held_since >= k_pause_after) {
      // The prepare stage has been busy for a while (PostgreSQL is slow or stalled): stop
      // fetching, keep polling. Shorter waits are not worth it: pausing drops librdkafka's
      // prefetched messages, which must then be fetched again.
      for (const auto& [tp, e] : _partitions.snapshot())
        _held_back.push_back(tp);
      if (!_held_back.empty()) _consumer->pause(_held_back);
      SLUICE_LOG(debug, "pipeline",
                 "backpressure: " << _held_back.size() << " partition(s) paused");
    }
    return false;
  }
  _held.reset();
  end_backpressure();
  return true;
}

bool pipeline::push_held_blocking() {
  while (_held) {
    if (_prepare_queue.closed()) {
      drop_held();  // nothing will run it
      return false;
    }
    if (_prepare_queue.try_push_for(*_held, std::chrono::milliseconds(100))) {
      _held.reset();
      end_backpressure();
      return true;
    }
    if (cannot_commit() || _state.get() == connector_state::failed) {
      // The stages ahead wait for PostgreSQL, a stalled statement or the dead-letter topic:
      // do not wait with them (a pause, a stop or a rebalance would hang behind the stall).
      abandon_in_flight();
      return false;
    }
  }
  return true;
}

void pipeline::drop_held() {
  if (_held) {
    _held.reset();
    finished_one();
  }
  end_backpressure();
}

void pipeline::end_backpressure() {
  if (_held_back.empty()) return;
  // A partition revoked meanwhile is no longer assigned; librdkafka ignores it.
  if (!_paused) _consumer->resume(_held_back);
  _held_back.clear();
}

void pipeline::handle_pause_requests() {
  const connector_state now = _state.get();
  if (_pause_requested.exchange(false) && !_paused &&
      (now == connector_state::running || now == connector_state::degraded)) {
    dispatch();
    settle();
    _consumer->pause_all();
    _paused = true;
    if (set_state(connector_state::paused)) SLUICE_LOG(info, "pipeline", "paused");
  }
  if (_resume_requested.exchange(false) && _paused) {
    _consumer->resume_all();
    _paused = false;
    if (_state.get() == connector_state::paused) set_state(connector_state::running);
    SLUICE_LOG(info, "pipeline", "resumed");
  }
}

connector_status pipeline::status() const {
  connector_status s;
  s.name = _config.name;
  s.state = _state.get();
  // Errors may quote what they were given (a DSN, a librdkafka message): no secret in /status.
  s.last_error = redact_secrets(_state.reason(), _config.secrets);
  std::tie(s.degraded_reason, s.degraded_since_ms) = _state.degraded();
  s.degraded_reason = redact_secrets(s.degraded_reason, _config.secrets);
  for (const auto& [tp, e] : _partitions.snapshot()) {
    partition_status& p = s.assigned.emplace_back();
    p.topic = tp.topic;
    p.partition = tp.partition;
    if (e.committed.value() >= 0) p.committed = e.committed;
    if (e.high_watermark >= 0) p.high_watermark = kafka_offset{e.high_watermark};
  }
  s.failed_tables = _failed_tables.list();
  return s;
}

bool pipeline::start(const std::atomic<bool>& stop_requested) {
  // The state schema is migrated, and what metadata records taught before a restart (it lies
  // behind the committed offsets) is learned again from sluice.catalog, before the first
  // message is decoded. PostgreSQL away at start-up is waited out like any outage.
  const auto session = _target->open("start-up", make_retry_policy(_config), &_health);
  const auto reader = session->make_reader(_config.name);
  const bool reached = session->connect([&] { return !stop_requested.load(); });
  if (!reached) return false;  // stopped while waiting
  // A stalled statement (the catalog's table locked) is retried on: a stop ends the wait.
  const auto catalog = reader->load_catalog([&] { return !stop_requested.load(); });
  if (!catalog) return false;
  for (const catalog_update& u : *catalog) {
    learn_shape(*_catalog.intern(u.table), u.columns, u.key_columns);
  }
  // Before joining the group: a partition claimed without an offset here may start from the
  // takeover group's, once that group is empty.
  if (!_config.takeover_group.empty() &&
      !_takeover.prepare(reader->read_offsets(), stop_requested)) {
    return false;
  }
  for (auto& lane : _lanes)
    lane->start();
  _janitor->start();  // the state schema exists now
  _owner->start();
  // Confluent-framed messages wait out the registry on the prepare thread, never on the
  // poll loop: the group's heartbeats and the HTTP endpoints keep going meanwhile.
  _preparer->set_schema_source(make_connector_schema_source(_config, _state, stop_requested));
  _prepare_thread = std::thread([this] { prepare_loop(); });

  kafka_settings settings;
  // librdkafka's own prefetch bound (queued.max.messages.kbytes, 64 MiB) is kept: librdkafka
  // 2.0 stops fetching when its queue is full and looks again only up to a second later, so
  // the queue must hold about a second of consumption or the pipeline starves in between (a
  // 16 MiB queue held the end-to-end benchmark at 70,000 events/s, idle a third of the time).
  settings.properties = _config.kafka;
  settings.topics = _config.topics;
  settings.topics_regex = _config.topics_regex;
  _consumer = std::make_unique<kafka_consumer>(settings, *this);
  set_state(connector_state::running);
  SLUICE_LOG(
      info, "pipeline",
      "running as connector '" << _config.name << "' with " << _lanes.size() << " apply lane(s)");
  return true;
}

int pipeline::run(const std::atomic<bool>& stop_requested) {
  try {
    if (!start(stop_requested)) {
      set_state(connector_state::stopped);
      SLUICE_LOG(info, "pipeline", "stopped before " << target_name() << " answered");
      return 0;
    }
  } catch (const std::exception& e) {
    SLUICE_LOG(error, "pipeline", "failed to start: " << e.what());
    fail(e.what());
  }
  auto batch_deadline = clock_type::now() + _config.batch.max_time;
  auto next_watermarks = clock_type::now();
  try {
    while (!stop_requested.load()) {
      const connector_state st = _state.get();
      if (st == connector_state::failed) break;
      take_owner_answers();
      if (_resync_requested.load()) resync();
      handle_pause_requests();
      // A held batch waits for room. Briefly, without polling (nothing more is consumed;
      // librdkafka's prefetch fills up to queued.max.messages.kbytes and stops); after
      // k_pause_after with the partitions paused, polling again so that the group protocol
      // and max.poll.interval.ms stay served (paused partitions deliver nothing).
      const bool paused_back = !_held_back.empty();
      const bool held = !push_held(std::chrono::milliseconds(paused_back ? 10 : 50));
      if (held && _held_back.empty()) continue;
      const size_t room =
          _config.batch.size > _batch.size() ? _config.batch.size - _batch.size() : 0;
      const auto until_deadline =
          std::chrono::duration_cast<std::chrono::milliseconds>(batch_deadline - clock_type::now());
      const auto wait = held ? std::chrono::milliseconds(10)
                             : std::clamp(until_deadline, std::chrono::milliseconds(0),
                                          std::chrono::milliseconds(100));
      size_t before = _batch.size();
      // batch.max.bytes bounds what one poll takes, not only when the next batch closes: a
      // poll of `room` 4 KB messages would otherwise overshoot it by up to batch.size of them.
      const size_t bytes_room =
          _batch_bytes < _config.batch.max_bytes ? _config.batch.max_bytes - _batch_bytes : 0;
      _consumer->poll(_batch, std::max<size_t>(room, 1), std::max<size_t>(bytes_room, 1), wait);
      drop_unready(before);
      handle_out_of_range();
      if (_batch.size() < before || _batch_trimmed) {
        // A rebalance inside the poll, or a claim or resync answered, dropped or trimmed the
        // batch: count what is left anew.
        before = 0;
        _batch_bytes = 0;
        _batch_trimmed = false;
      }
      if (before == 0 && !_batch.empty())
        batch_deadline = clock_type::now() + _config.batch.max_time;
      for (size_t i = before; i < _batch.size(); ++i) {
        _batch_bytes += _batch[i]->len + _batch[i]->key_len;
      }
      const bool full =
          _batch.size() >= _config.batch.size || _batch_bytes >= _config.batch.max_bytes;
      // Nothing more buffered (the poll stopped short of the room it had) and nothing in
      // flight: waiting for batch.max.ms would only add latency, so the batch goes now. Under
      // load earlier batches are always in flight, and batches fill up as before.
      const bool drained = _batch.size() - before < std::max<size_t>(room, 1);
      if (!held && !_batch.empty() &&
          (full || clock_type::now() >= batch_deadline || (drained && idle()))) {
        dispatch(/*wait=*/false);
      }
      if (_batch.empty()) batch_deadline = clock_type::now() + _config.batch.max_time;
      if (clock_type::now() >= next_watermarks) {
        if (!_fenced.empty()) reclaim_fenced();
        refresh_watermarks();
        next_watermarks = clock_type::now() + std::chrono::seconds(1);
      } else if (_lag_stale.load()) {
        refresh_lag();
      }
    }
    if (set_state(connector_state::draining)) {  // not FAILED
      SLUICE_LOG(info, "pipeline", "draining: applying the batches in flight");
      dispatch();
      settle();  // abandoned, not waited for, while PostgreSQL is away
    }
  } catch (const std::exception& e) {
    SLUICE_LOG(error, "pipeline", "failed: " << e.what());
    fail(e.what());
  }

  if (_state.get() == connector_state::failed) {
    ++_generation;  // nothing more is applied
    SLUICE_LOG(error, "pipeline", "FAILED: " << _state.reason() << " (waiting to be stopped)");
    while (!stop_requested.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (_consumer) _consumer->close();
    return 1;
  }
  if (_consumer) _consumer->close();
  set_state(connector_state::stopped);
  SLUICE_LOG(info, "pipeline", "stopped");
  return 0;
}

}  // namespace sluice
