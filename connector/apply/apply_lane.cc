#include "connector/apply/apply_lane.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "connector/apply/dead_letter_producer.h"
#include "connector/base/log.h"
#include "sinks/batch_metadata.h"

namespace sluice {

apply_lane::apply_lane(size_t index, const sink::target& target, retry_policy policy,
                       apply_options options, session_observer* observer,
                       partition_table& partitions, dead_letter_producer* dlq, callbacks cb,
                       size_t queue_capacity)
    : _index(index),
      _policy(policy),
      _session(target.open("lane-" + std::to_string(index), policy, observer)),
      _applier(_session->make_applier(std::move(options))),
      _partitions(partitions),
      _dlq(dlq),
      _cb(std::move(cb)),
      _queue(queue_capacity) {
  if (_dlq) {
    _applier->set_dead_letter_sink(
        [dlq = _dlq](const std::vector<const dead_letter*>& letters) { dlq->send(letters); });
  }
}

apply_lane::~apply_lane() {
  stop();
}

void apply_lane::start() {
  _thread = std::thread([this] { run(); });
}

void apply_lane::stop() {
  _stopping = true;
  _queue.close();
  if (_thread.joinable()) _thread.join();
}

void apply_lane::run() {
  while (auto batch = _queue.pop()) {
    if (batch->generation < _cb.current_generation()) {
      _cb.done();
      continue;  // abandoned: its offsets were never committed, it will be consumed again
    }
    // The dead-letter topic unwritable: the batch did not commit; it is sent and applied again
    // after a backoff, for as long as it takes (the producer holds the connector DEGRADED),
    // unless the batch is abandoned meanwhile (a rebalance, a stop).
    const uint64_t generation = batch->generation;
    const keep_going current = [this, generation] {
      return !_stopping.load() && generation >= _cb.current_generation();
    };
    // What the batch's metadata records taught goes into the same transaction: a restart
    // past those records must still know what they said.
    const batch_metadata metadata{std::move(batch->catalog), std::move(batch->ddl),
                                  std::move(batch->pieces), batch->newest_message};
    for (int failures = 1;; ++failures) {
      try {
        apply(*batch, metadata, current);
      } catch (const dead_letter_queue_error& e) {
        const std::chrono::milliseconds wait = _policy.backoff(failures);
        SLUICE_LOG(warn, "lane",
                   "lane " << _index << ": " << e.what() << "; the batch is sent again in "
                           << wait.count() << " ms");
        if (wait_while(wait, current)) continue;
        _dlq->withdrawn();  // abandoned: it no longer waits on the topic
      } catch (const std::exception& e) {
        SLUICE_LOG(error, "lane", "lane " << _index << ": " << e.what());
        _cb.failed(e.what());
      }
      break;
    }
    _cb.done();
  }
}

bool apply_lane::wait_while(std::chrono::milliseconds total, const keep_going& go) {
  const auto until = std::chrono::steady_clock::now() + total;
  while (std::chrono::steady_clock::now() < until) {
    if (!go()) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        std::chrono::milliseconds(100), until - std::chrono::steady_clock::now()));
  }
  return go();
}

void apply_lane::apply(const lane_batch& batch, const batch_metadata& metadata,
                       const keep_going& current) {
  if (_dlq && !batch.dead_letters.empty()) _dlq->send(batch.dead_letters);
  const auto start = std::chrono::steady_clock::now();
  const apply_result result =
      _applier->apply(batch.merged, batch.dead_letters, batch.progress, metadata, current);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  switch (result.outcome) {
    case apply_outcome::committed:
      // Metrics first, then the committed offsets the lag is computed from: whoever sees
      // a partition's lag at 0 also sees the batch's rows counted.
      _cb.applied(batch, result.stats, seconds);
      for (const partition_progress& p : batch.progress) {
        _partitions.committed({p.topic, p.partition}, p.next);
      }
      if (!batch.poison.empty()) _cb.failed(batch.poison);
      break;
    case apply_outcome::stale:
      SLUICE_LOG(warn, "lane", "lane " << _index << ": batch abandoned: " << result.why);
      _cb.stale(result.why);
      break;
    case apply_outcome::abandoned:
      SLUICE_LOG(debug, "lane", "lane " << _index << ": " << result.why);
      break;
  }
}

}  // namespace sluice
