#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace sluice {

class pg_applier;

// Expires tombstones older than tombstone.retention (SPEC §4) in the background, on its own
// PostgreSQL connection, so that apply never waits for it. Runs when started, then every
// retention/10 (at least 10 s, at most 10 min); a failure is logged and tried again next time.
// Lifecycle: start() launches the thread; stop() (or the destructor) ends it promptly.
class tombstone_janitor {
 public:
  tombstone_janitor(std::unique_ptr<pg_applier> applier, std::chrono::milliseconds retention);
  ~tombstone_janitor();

  void start();
  void stop();

 private:
  void run();

  std::unique_ptr<pg_applier> _applier;
  std::chrono::milliseconds _retention;
  std::mutex _mutex;
  std::condition_variable _cv;
  bool _stopping = false;
  std::thread _thread;  // last: joined before the members it uses go
};

}  // namespace sluice
