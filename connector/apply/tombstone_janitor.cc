#include "connector/apply/tombstone_janitor.h"

#include <algorithm>
#include <utility>

#include "connector/base/log.h"

namespace sluice {

tombstone_janitor::tombstone_janitor(const sink::target& target, retry_policy policy,
                                     session_observer* observer,
                                     std::chrono::milliseconds retention,
                                     std::function<void(size_t)> kept)
    : _session(target.open("janitor", policy, observer)),
      _janitor(_session->make_janitor()),
      _retention(retention),
      _kept(std::move(kept)) {}

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
      const auto e = _janitor->expire_tombstones(duration_cast<seconds>(_retention), [this] {
        std::lock_guard stopping(_mutex);
        return !_stopping;
      });
      if (e && e->expired > 0) {
        SLUICE_LOG(info, "tombstones", "expired " << e->expired << " tombstone(s)");
      }
      if (e && e->kept > 0) {
        SLUICE_LOG(info, "tombstones",
                   "kept " << e->kept
                           << " tombstone(s) past tombstone.retention for stored dead letters "
                              "that may replay older changes (replay or purge them to let go)");
      }
      if (e && _kept) _kept(e->kept);
    } catch (const std::exception& e) {
      SLUICE_LOG(warn, "tombstones", "expiry failed (will retry): " << e.what());
    }
    lock.lock();
  } while (!_cv.wait_for(lock, interval, [&] { return _stopping; }));
}

}  // namespace sluice
