#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <utility>

#include "core/model/named_type.h"

namespace sluice {

// chunk.timeout's clock (each target's state/chunk_store.h): the newest Kafka timestamp seen, never
// moved further than `max_lead` ahead of this machine's clock, and never back.
//
//   observe(t):  clock = max(clock, min(t, wall() + max_lead))
//
// Why Kafka time and not wall time: a catch-up after downtime reads hours-old messages, and a
// chunk whose last pieces are in that backlog must not expire before they are read.
// Why the cap: with the plain maximum, one message stamped far in the future (a producer's
// clock gone wrong; sluice run refuses only what is more than a day ahead) would move the
// clock there for good and expire every pending chunk at once. Legitimate Kafka time is
// behind this machine's clock, or ahead by the clock skew between producers, brokers and
// this machine: NTP keeps that under a second, max_lead (a minute) is generous.
// Why not a robust statistic of the batch (a median): a quiet topic has batches of one
// message, whose median is that message. What remains: during a catch-up, a message stamped
// ahead of the backlog moves the clock up to now + max_lead, as a fresh message would.
//
// Lifecycle: one per applier (lane). Threading: the applier's.
class stream_clock {
 public:
  using wall_clock = std::function<timestamp_ns()>;
  static constexpr std::chrono::nanoseconds default_max_lead = std::chrono::minutes(1);

  static timestamp_ns system_now() {
    return timestamp_ns{std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count()};
  }

  explicit stream_clock(std::chrono::nanoseconds max_lead = default_max_lead,
                        wall_clock wall = &stream_clock::system_now)
      : _max_lead(max_lead), _wall(std::move(wall)) {}

  void observe(timestamp_ns t) {
    if (t <= _now) return;  // the common case costs no clock read
    const timestamp_ns cap{_wall().value() + _max_lead.count()};
    _now = std::max(_now, std::min(t, cap));
  }
  timestamp_ns now() const { return _now; }

 private:
  std::chrono::nanoseconds _max_lead;
  wall_clock _wall;
  timestamp_ns _now{0};
};

}  // namespace sluice
