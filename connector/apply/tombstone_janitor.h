#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "sinks/target.h"

namespace sluice {

// Expires tombstones older than tombstone.retention (SPEC §4) in the background, on its own
// target session (the state janitor role), so that apply never waits for it; those a stored
// dead letter may still need stay (sink::tombstone_expiry), their count reported to `kept`
// (sluice_tombstones_kept_for_dead_letters). Runs when started, then every retention/10 (at
// least 10 s, at most 10 min); an outage is waited out, another failure logged and tried again
// next time.
// Lifecycle: start() launches the thread; stop() (or the destructor) ends it promptly.
class tombstone_janitor {
 public:
  tombstone_janitor(const sink::target& target, retry_policy policy, session_observer* observer,
                    std::chrono::milliseconds retention, std::function<void(size_t)> kept = {});
  ~tombstone_janitor();

  void start();
  void stop();

 private:
  void run();

  std::unique_ptr<sink::target_session> _session;
  std::unique_ptr<sink::state_janitor> _janitor;  // on _session
  std::chrono::milliseconds _retention;
  std::function<void(size_t)> _kept;
  std::mutex _mutex;
  std::condition_variable _cv;
  bool _stopping = false;
  std::thread _thread;  // last: joined before the members it uses go
};

}  // namespace sluice
