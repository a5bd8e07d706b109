#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/model/topic_partition.h"
#include "sinks/target.h"

namespace sluice {

// The partition owner's thread: every PostgreSQL call the consumer thread would otherwise make
// — claims on assignment, the offsets a resync reads back, recounting pending chunks — runs
// here, on the owner's own session, so that an outage never blocks the poll (the member stays
// in its group however long PostgreSQL is away). The consumer thread queues requests and
// collects the answers on its next loop; nothing waits, except cancel() (bounded).
//
//   loop: next request (or, idle for ping_every, a ping: an outage is noticed even when no
//         batch runs, and /readyz says so)
//         claim          partition_owner::claim, retried while the request stands
//         read offsets   partition_owner::read_offsets
//         count chunks   state_reader::pending_chunks
//         a failure a person must fix (refused login, fatal error) → failed(why)
//
// Lifecycle: start() after the state schema exists; stop() (or the destructor) ends the
// thread, abandoning what waits. Threading: the public methods are for the consumer thread
// (cancel() too); the callbacks run on the worker thread.
class owner_worker {
 public:
  struct claimed {
    uint64_t ticket = 0;  // the claim request's
    std::string topic;
    std::vector<claimed_partition> partitions;
  };
  struct callbacks {
    std::function<void(uint64_t pending)> chunks_counted;
    std::function<void(const std::string& why)> failed;
  };

  owner_worker(const sink::target& target, retry_policy policy, std::string connector,
               session_observer* observer, callbacks cb,
               std::chrono::milliseconds ping_every = std::chrono::seconds(5));
  ~owner_worker();

  void start();
  void stop();

  // Requests (answered through take_*()).
  void claim(uint64_t ticket, const std::string& topic, std::vector<partition_id> partitions);
  void read_offsets(uint64_t ticket);
  void count_pending_chunks();
  // The partitions are no longer assigned: queued claims forget them, and a claim of one of
  // them that is running stops retrying (the others it named are claimed again); waits (at
  // most `wait`) until it has ended, so that no claim of ours lands after the next owner's.
  void cancel(const std::vector<topic_partition>& parts, std::chrono::milliseconds wait);

  std::vector<claimed> take_claims();
  // The answer to the newest read_offsets() request, once (its ticket and the offsets).
  std::optional<std::pair<uint64_t, std::vector<stored_offset>>> take_offsets();

 private:
  struct request {
    enum class kind : uint8_t { claim, read_offsets, count_chunks } what;
    uint64_t ticket = 0;
    std::string topic;
    std::vector<partition_id> partitions;
  };
  void run();
  void serve(request& r);
  bool standing(const request& r) const;  // under _mutex

  std::unique_ptr<sink::target_session> _session;
  std::unique_ptr<sink::partition_owner> _owner;  // on _session
  std::unique_ptr<sink::state_reader> _reader;    // on _session
  callbacks _cb;
  std::chrono::milliseconds _ping_every;

  mutable std::mutex _mutex;
  std::condition_variable _cv;  // requests in, running request done
  std::deque<request> _queue;
  const request* _running = nullptr;  // points into the worker's own copy
  bool _running_cancelled = false;
  uint64_t _started = 0;   // requests taken up…
  uint64_t _finished = 0;  // …and done with (cancel() waits for the one it cancelled)
  std::atomic<bool> _stopping{false};
  std::vector<claimed> _claims;
  std::optional<std::pair<uint64_t, std::vector<stored_offset>>> _offsets;
  std::thread _thread;  // last: joined before the members it uses go
};

}  // namespace sluice
