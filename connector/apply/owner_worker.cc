#include "connector/apply/owner_worker.h"

#include <algorithm>

#include "connector/base/log.h"

namespace sluice {

owner_worker::owner_worker(const sink::target& target, retry_policy policy, std::string connector,
                           session_observer* observer, callbacks cb,
                           std::chrono::milliseconds ping_every)
    : _session(target.open("partition-owner", policy, observer)),
      _owner(_session->make_owner(connector)),
      _reader(_session->make_reader(connector)),
      _cb(std::move(cb)),
      _ping_every(ping_every) {}

owner_worker::~owner_worker() {
  stop();
}

void owner_worker::start() {
  _thread = std::thread([this] { run(); });
}

void owner_worker::stop() {
  {
    std::lock_guard lock(_mutex);
    _stopping = true;
  }
  _cv.notify_all();
  if (_thread.joinable()) _thread.join();
}

void owner_worker::claim(uint64_t ticket, const std::string& topic,
                         std::vector<partition_id> partitions) {
  {
    std::lock_guard lock(_mutex);
    _queue.push_back({request::kind::claim, ticket, topic, std::move(partitions)});
  }
  _cv.notify_all();
}

void owner_worker::read_offsets(uint64_t ticket) {
  {
    std::lock_guard lock(_mutex);
    _queue.push_back({request::kind::read_offsets, ticket, {}, {}});
  }
  _cv.notify_all();
}

void owner_worker::count_pending_chunks() {
  {
    std::lock_guard lock(_mutex);
    for (const request& r : _queue) {
      if (r.what == request::kind::count_chunks) return;  // one is enough
    }
    _queue.push_back({request::kind::count_chunks, 0, {}, {}});
  }
  _cv.notify_all();
}

void owner_worker::cancel(const std::vector<topic_partition>& parts,
                          std::chrono::milliseconds wait) {
  const auto named = [&](const request& r) {
    if (r.what != request::kind::claim) return false;
    return std::any_of(parts.begin(), parts.end(), [&](const topic_partition& tp) {
      return tp.topic == r.topic && std::find(r.partitions.begin(), r.partitions.end(),
                                              tp.partition) != r.partitions.end();
    });
  };
  std::unique_lock lock(_mutex);
  for (request& r : _queue) {
    if (!named(r)) continue;
    std::erase_if(r.partitions, [&](partition_id p) {
      return std::find(parts.begin(), parts.end(), topic_partition{r.topic, p}) != parts.end();
    });
  }
  std::erase_if(_queue, [](const request& r) {
    return r.what == request::kind::claim && r.partitions.empty();
  });
  if (!_running || !named(*_running)) return;
  // The running claim names some of them: it stops retrying (a claim of ours must not land
  // after the next owner's), and the partitions it named that stay assigned are claimed again.
  std::vector<partition_id> kept;
  for (partition_id p : _running->partitions) {
    if (std::find(parts.begin(), parts.end(), topic_partition{_running->topic, p}) == parts.end()) {
      kept.push_back(p);
    }
  }
  if (!kept.empty()) {
    _queue.push_front({request::kind::claim, _running->ticket, _running->topic, std::move(kept)});
  }
  _running_cancelled = true;
  const uint64_t cancelled = _started;
  const bool ended = _cv.wait_for(lock, wait, [&] { return _finished >= cancelled; });
  if (!ended) {
    SLUICE_LOG(warn, "pipeline",
               "a claim of a revoked partition is still running after "
                   << wait.count() << " ms; going on without waiting for it");
  }
}

std::vector<owner_worker::claimed> owner_worker::take_claims() {
  std::lock_guard lock(_mutex);
  return std::exchange(_claims, {});
}

std::optional<std::pair<uint64_t, std::vector<stored_offset>>> owner_worker::take_offsets() {
  std::lock_guard lock(_mutex);
  return std::exchange(_offsets, std::nullopt);
}

bool owner_worker::standing(const request& r) const {
  if (_stopping) return false;
  return !(r.what == request::kind::claim && _running_cancelled);
}

void owner_worker::serve(request& r) {
  const auto go = [this, &r] {
    std::lock_guard lock(_mutex);
    return standing(r);
  };
  switch (r.what) {
    case request::kind::claim: {
      auto claims = _owner->claim(r.topic, r.partitions, go);
      if (!claims) return;
      std::lock_guard lock(_mutex);
      _claims.push_back({r.ticket, r.topic, std::move(*claims)});
      return;
    }
    case request::kind::read_offsets: {
      auto offsets = _owner->read_offsets(go);
      if (!offsets) return;
      std::lock_guard lock(_mutex);
      _offsets = std::make_pair(r.ticket, std::move(*offsets));
      return;
    }
    case request::kind::count_chunks: {
      const auto pending = _reader->pending_chunks(go);
      if (pending && _cb.chunks_counted) _cb.chunks_counted(*pending);
      return;
    }
  }
}

void owner_worker::run() {
  std::unique_lock lock(_mutex);
  while (!_stopping) {
    if (_queue.empty()) {
      if (_cv.wait_for(lock, _ping_every, [&] { return _stopping || !_queue.empty(); })) continue;
      // Idle: a ping, so that an outage shows (DEGRADED, /readyz) even with no batch to apply.
      lock.unlock();
      try {
        _session->ping([this] { return !_stopping.load(); });
      } catch (const std::exception& e) {
        if (_cb.failed) _cb.failed(e.what());
      }
      lock.lock();
      continue;
    }
    request r = std::move(_queue.front());
    _queue.pop_front();
    _running = &r;
    _running_cancelled = false;
    ++_started;
    lock.unlock();
    try {
      serve(r);
    } catch (const std::exception& e) {
      SLUICE_LOG(error, "pipeline", "partition owner: " << e.what());
      if (_cb.failed) _cb.failed(e.what());
    }
    lock.lock();
    _running = nullptr;
    _finished = _started;
    _cv.notify_all();
  }
}

}  // namespace sluice
