#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "connector/apply/apply_lane.h"
#include "connector/apply/dead_letter_producer.h"
#include "connector/apply/failed_tables.h"
#include "connector/apply/owner_worker.h"
#include "connector/apply/target_health.h"
#include "connector/apply/tombstone_janitor.h"
#include "connector/base/bounded_queue.h"
#include "connector/base/connector_state.h"
#include "connector/base/lane_batch.h"
#include "connector/base/partition_table.h"
#include "connector/base/target_names.h"
#include "connector/config/config.h"
#include "connector/drive/takeover.h"
#include "connector/http/status_source.h"
#include "connector/metrics/apply_probe.h"
#include "connector/metrics/chunk_probe.h"
#include "connector/metrics/consumer_probe.h"
#include "connector/metrics/state_probe.h"
#include "connector/metrics/target_probe.h"
#include "connector/metrics/tombstone_probe.h"
#include "connector/prepare/batch_preparer.h"
#include "connector/prepare/target_key_lookup.h"
#include "connector/source/kafka_consumer.h"
#include "connector/source/raw_batch.h"
#include "core/catalog/table_catalog.h"

namespace sluice {

// The one place that knows every stage (STYLE.md #1). Three kinds of threads:
//
//   consumer (run()'s thread)      prepare thread               apply lanes (apply.lanes)
//   poll Kafka until the batch  →  decode, split by lane,   →   one PostgreSQL transaction
//   closes (rows, bytes, time)     merge per lane               per lane batch: rows + dead
//   [bounded queue]                [bounded queue per lane]     letters + offsets (epoch CAS)
//                                                               then offsets → Kafka (async)
//
// so decode and merge of batch N+1 overlap the apply of batch N, and lanes apply in
// parallel. A partition always maps to one lane, so its batches commit in order.
//
// Backpressure: when the prepare queue is full, the closed batch is held; if it still waits
// after a second, the owned partitions are paused and the consumer thread polls again
// (heartbeats, rebalances and max.poll.interval.ms stay served however long PostgreSQL
// stalls) but fetches nothing until the held batch is handed over and the partitions resumed.
// Memory stays bounded by the queues, one held batch and librdkafka's prefetch
// (queued.max.messages.kbytes), whatever the backlog.
//
// Partitions are claimed on assignment (owner epoch bumped in PostgreSQL; the consumer
// starts at the stored offset, or auto.offset.reset when there is none). On revocation the
// work in flight is finished and committed first; on loss, or when a lane's compare-and-set
// fails (another owner took a partition), the pipeline generation is bumped: work in flight
// is abandoned, never retried as if nothing happened, and every partition is re-read from
// PostgreSQL (fenced if its epoch moved, else rewound to its committed offset).
//
// No PostgreSQL call runs on the consumer thread: claims and the resync's offset reads run on
// the partition owner's thread (owner_worker.h). The consumer thread waits for them briefly
// (k_owner_wait); when PostgreSQL does not answer in that time (an outage), it goes on polling
// — the member stays in its group — with those partitions assigned but paused, and their
// messages dropped, until the answer comes: then it seeks them to the stored offset and
// resumes them. While PostgreSQL is unreachable the connector is DEGRADED (target_health.h):
// lanes wait the outage out, backpressure pauses the partitions, and work that cannot finish
// (a revocation, a pause, a drain meanwhile) is abandoned, to be consumed again.
//
// Threading: run() and the assignment callbacks run on the consumer thread; request_*() and
// status() may be called from any thread.
class pipeline : public assignment_listener, public status_source {
 public:
  pipeline(const config& cfg, metrics_registry& metrics);
  ~pipeline() override;

  // Runs until stop_requested becomes true (then drains: batches in flight are applied and
  // committed) or the connector fails (then waits for stop_requested). Returns the exit code.
  int run(const std::atomic<bool>& stop_requested);

  // status_source, for /status and /healthz (any thread).
  connector_status status() const override;
  connector_state state() const override { return _state.get(); }
  void request_pause() { _pause_requested = true; }
  void request_resume() { _resume_requested = true; }

  std::vector<int64_t> on_assigned(const std::vector<topic_partition>& parts) override;
  void on_revoked(const std::vector<topic_partition>& parts, bool lost) override;

 private:
  // Migrates the state schema, learns the stored catalog, starts the threads and the
  // consumer; false when stopped while waiting for PostgreSQL.
  bool start(const std::atomic<bool>& stop_requested);
  void prepare_loop();
  // Closes the current batch and hands it to the prepare stage. wait: block until the stage
  // takes it (revocation, pause, drain); else hold it under backpressure when the stage is
  // busy. A held batch is always handed over before the next one.
  void dispatch(bool wait = true);
  // Hands the held batch over (waiting at most `wait`); true when nothing is held any more.
  bool push_held(std::chrono::milliseconds wait);
  bool push_held_blocking();
  void drop_held();  // its generation is abandoned (loss, resync)
  void end_backpressure();
  // Nothing handed on and not yet applied.
  bool idle();
  // Waits until nothing is in flight. While PostgreSQL is unreachable the work in flight
  // cannot finish: it is abandoned (a resync follows) and the wait ends once the lanes let go.
  // False when work was abandoned.
  bool settle();
  void abandon_in_flight();
  void resync();  // abandon work in flight, re-read offsets, fence or rewind
  // Fences or rewinds `parts` (the partitions owned when the resync began, less those
  // assigned or revoked since) from the stored offsets.
  void finish_resync(const std::vector<stored_offset>& stored,
                     const std::set<topic_partition>& parts);
  // Claims and offsets the partition owner answered: applied on the consumer thread.
  void take_owner_answers();
  // Applies answered claims; for a claim of the assignment being made (`assigning`), fills
  // `starts` instead of seeking.
  void apply_claims(std::vector<owner_worker::claimed> claims, uint64_t assigning,
                    std::map<topic_partition, int64_t>* starts);
  void resume_ready(const std::vector<topic_partition>& parts);
  // Drops the consumed messages (from `from` on) of partitions not claimed yet or waiting for
  // a resync, and of `sought` (about to be sought: fetched again from there).
  void drop_unready(size_t from, const std::set<topic_partition>* sought = nullptr);
  // PostgreSQL is away: the stages ahead wait for it (a held batch abandons what is in flight
  // rather than wait with them).
  bool degraded() const { return _health.down(); }
  // Nothing in flight can commit soon: PostgreSQL away, a statement stalled on a transient
  // error, or the dead-letter topic unwritable. A rebalance or a stop abandons what is in
  // flight rather than wait for it inside the consumer's callback. (Backpressure alone does
  // not: a stalled lane keeps its batch and retries it, the partitions paused meanwhile.)
  bool cannot_commit() const {
    return _health.down() || _health.stalled() || (_dlq && _dlq->unavailable());
  }
  void handle_pause_requests();
  // Positions the log no longer holds, as offsets.out.of.range says (pipeline_positions.cc).
  void handle_out_of_range();
  // Revoked partitions are no longer stopped here (their next owner meets the gap again).
  void forget_stopped(const std::vector<topic_partition>& parts);
  void show_stopped();  // _stopped as the "offsets" DEGRADED reason
  // Fenced partitions the group still assigns here, past their grace: claimed again (the
  // group is the authority on who owns a partition; the epoch only orders the owners).
  void reclaim_fenced();
  void show_fenced();  // _fenced as the "ownership" DEGRADED reason and the gauge
  void refresh_watermarks();
  // The lag gauges from the partition table as it is now (no broker round trip): after every
  // refresh of the watermarks, and as soon as a lane committed (a scrape right after the
  // replica caught up shows lag 0, not what was true up to a second before). Returns whether
  // nothing is in flight or batched.
  bool refresh_lag();
  void finished_one();
  bool set_state(connector_state s) { return _state.set(s); }
  void fail(const std::string& why) { _state.fail(why); }
  void observe_applied(const lane_batch& b, const apply_stats& stats, double seconds);
  size_t lane_of(const topic_partition& tp) const;
  // Where a claimed partition starts: its stored offset; else the takeover group's committed
  // one; else kafka.auto.offset.reset.
  int64_t start_offset(const topic_partition& tp, std::optional<kafka_offset> stored) const;

  // "PostgreSQL" or "MariaDB", for the log lines (base/target_names.h).
  std::string_view target_name() const { return target_display_name(target_of(_config)); }

  const config& _config;
  state_probe _state_probe;
  state_holder _state;                  // publishes to _state_probe
  takeover _takeover{_config, _state};  // offsets.takeover.group, prepared at start-up
  // The prepare thread was stopped waiting for the schema registry: it prepares nothing more.
  bool _registry_stopped = false;
  consumer_probe _consumer_probe;
  apply_probe _apply_probe;
  chunk_probe _chunk_probe;
  tombstone_probe _tombstone_probe;
  failed_tables _failed_tables;
  target_probe _target_probe;
  target_health _health;                  // observes every session below: built before them
  std::unique_ptr<sink::target> _target;  // where rows go (sinks/target.h): every session below
  table_catalog _catalog;
  partition_table _partitions;
  std::atomic<uint64_t> _generation{1};
  std::atomic<bool> _resync_requested{false};
  std::atomic<bool> _lag_stale{false};  // a lane committed since the lag gauges were set
  std::atomic<bool> _pause_requested{false};
  std::atomic<bool> _resume_requested{false};
  bool _paused = false;

  std::mutex _idle_mutex;
  std::condition_variable _idle_cv;
  size_t _in_flight = 0;  // raw and lane batches handed on and not yet finished

  std::vector<kafka_message> _batch;  // being filled by the consumer thread
  size_t _batch_bytes = 0;
  bool _batch_trimmed = false;     // messages were dropped from _batch since it was counted
  std::optional<raw_batch> _held;  // closed, waiting for room (backpressure)
  std::chrono::steady_clock::time_point _held_since;  // when _held was closed
  std::vector<topic_partition> _held_back;            // partitions paused for backpressure

  std::map<topic_partition, uint64_t> _unclaimed;   // assigned, claim pending: its ticket
  std::map<topic_partition, std::string> _stopped;  // out of range, offsets.out.of.range: fail
  struct fenced_partition {
    int64_t ours = 0, theirs = -1;  // the epochs (-1: no offsets row any more)
    int64_t committed = -1;         // ours, when fenced: its lag keeps being shown
    std::chrono::steady_clock::time_point reclaim_at;
  };
  std::map<topic_partition, fenced_partition> _fenced;  // assigned here, another epoch owns it
  std::set<topic_partition> _assigned;                  // what the group assigns this member
  uint64_t _claim_tickets = 0;
  uint64_t _resync_ticket = 0;               // a resync waiting for its offsets (0: none)
  std::set<topic_partition> _resync_paused;  // …and the partitions it paused meanwhile
  std::atomic<uint64_t> _preparing{0};       // the generation the prepare thread works for

  std::unique_ptr<owner_worker> _owner;            // claims, offset reads (owner thread)
  std::unique_ptr<target_key_lookup> _key_lookup;  // the catalog's key resolver (prepare thread)
  std::unique_ptr<tombstone_janitor> _janitor;
  std::unique_ptr<dead_letter_producer> _dlq;
  std::unique_ptr<batch_preparer> _preparer;
  std::vector<std::unique_ptr<apply_lane>> _lanes;
  bounded_queue<raw_batch> _prepare_queue{1};
  std::thread _prepare_thread;
  // Last: destroyed first, so the consumer leaves the group while everything its rebalance
  // callbacks use still exists.
  std::unique_ptr<kafka_consumer> _consumer;
};

}  // namespace sluice
