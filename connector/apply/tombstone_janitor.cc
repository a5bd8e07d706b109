#include "connector/apply/tombstone_janitor.h"

#include <algorithm>

#include "connector/base/log.h"

namespace sluice {

tombstone_janitor::tombstone_janitor(const sink::target& target, retry_policy policy,
                                     session_observer* observer,
                                     std::chrono::milliseconds retention)
    : _session(target.open("janitor", policy, observer)),
      _janitor(_session->make_janitor()),
      _retention(retention) {}

tombstone_janitor::~tombstone_janitor() {
  stop();
}

void tombstone_janitor::start() {
  if (_retention.count() <= 0) return;
  _thread = std::thread([this] { run(); });
}

void tombstone_janitor::stop() {
  {
    std::lock_guard lock(_mutex);
    _stopping = true;
  }
  _cv.notify_all();
  if (_thread.joinable()) _thread.join();
}

void tombstone_janitor::run() {
  using namespace std::chrono;
  const auto interval = std::clamp<milliseconds>(_retention / 10, seconds(10), minutes(10));
  std::unique_lock lock(_mutex);
  // A first pass at start: after a long stop, what expired meanwhile goes now.
  do {
    lock.unlock();
    try {
      const auto n = _janitor->expire_tombstones(duration_cast<seconds>(_retention), [this] {
        std::lock_guard stopping(_mutex);
        return !_stopping;
      });
      if (n && *n > 0) SLUICE_LOG(info, "tombstones", "expired " << *n << " tombstone(s)");
    } catch (const std::exception& e) {
      SLUICE_LOG(warn, "tombstones", "expiry failed (will retry): " << e.what());
    }
    lock.lock();
  } while (!_cv.wait_for(lock, interval, [&] { return _stopping; }));
}

}  // namespace sluice
