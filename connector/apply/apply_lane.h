#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include "connector/base/bounded_queue.h"
#include "connector/base/lane_batch.h"
#include "connector/base/partition_table.h"
#include "sinks/batch_metadata.h"
#include "sinks/keep_going.h"
#include "sinks/retry_policy.h"
#include "sinks/target.h"

namespace sluice {

class dead_letter_producer;

// One apply lane: a thread with its own target session that applies the lane batches of
// its partitions in order, one transaction each (rows + dead letters + offsets).
//
//   loop: pop a lane batch
//         abandoned generation      → drop it
//         dead letters → Kafka DLQ (when configured), acknowledged before the commit; not
//                        delivered → the batch is sent and applied again after a backoff,
//                        for as long as it takes (the connector DEGRADED meanwhile)
//         apply (batch_applier: outages waited out, retries, isolation, in-doubt resolution;
//                given up as soon as the batch's generation is abandoned)
//           committed   → record committed offsets; report
//           stale epoch → report: the pipeline resyncs from PostgreSQL
//           abandoned   → nothing: the pipeline consumes it again
//           thrown      → report the failure: the connector enters FAILED
//
// Lifecycle: start() launches the thread; stop() closes the queue and joins. Threading: the
// callbacks run on the lane thread.
class apply_lane {
 public:
  struct callbacks {
    std::function<uint64_t()> current_generation;
    std::function<void(const lane_batch&, const apply_stats&, double seconds)> applied;
    std::function<void(const std::string& why)> stale;
    std::function<void(const std::string& why)> failed;
    std::function<void()> done;  // after every batch, whatever its outcome
  };

  apply_lane(size_t index, const sink::target& target, retry_policy policy, apply_options options,
             session_observer* observer, partition_table& partitions, dead_letter_producer* dlq,
             callbacks cb, size_t queue_capacity);
  ~apply_lane();

  void start();
  // Returns false when the lane was stopped.
  bool submit(lane_batch&& batch) { return _queue.push(std::move(batch)); }
  void stop();
  sink::batch_applier& applier() { return *_applier; }

 private:
  void run();
  // One attempt at a batch: its dead letters sent, then applied, then reported.
  void apply(const lane_batch& batch, const batch_metadata& metadata, const keep_going& current);
  // Sleeps up to total while current() holds; false when it stopped holding.
  static bool wait_while(std::chrono::milliseconds total, const keep_going& current);

  size_t _index;
  retry_policy _policy;  // the backoff between sends to an unwritable dead-letter topic
  std::unique_ptr<sink::target_session> _session;
  std::unique_ptr<sink::batch_applier> _applier;  // on _session
  std::atomic<bool> _stopping{false};
  partition_table& _partitions;
  dead_letter_producer* _dlq;
  callbacks _cb;
  bounded_queue<lane_batch> _queue;
  std::thread _thread;  // last: joined before the members it uses go
};

}  // namespace sluice
