#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "sinks/postgres/session/pg_session.h"
#include "sinks/postgres/state_janitor.h"

namespace sluice {

// Expires tombstones older than tombstone.retention (SPEC §4) in the background, on its own
// PostgreSQL session (state_janitor), so that apply never waits for it. Runs when started, then
// every retention/10 (at least 10 s, at most 10 min); an outage is waited out, another failure
// logged and tried again next time.
// Lifecycle: start() launches the thread; stop() (or the destructor) ends it promptly.
class tombstone_janitor {
 public:
  tombstone_janitor(session_options session, retry_policy policy, session_observer* observer,
                    std::chrono::milliseconds retention);
  ~tombstone_janitor();

  void start();
  void stop();

 private:
  void run();

  pg_session _session;
  state_janitor _janitor;
  std::chrono::milliseconds _retention;
  std::mutex _mutex;
  std::condition_variable _cv;
  bool _stopping = false;
  std::thread _thread;  // last: joined before the members it uses go
};

}  // namespace sluice
