#pragma once

#include <cstddef>

namespace prometheus {
class Gauge;
}  // namespace prometheus

namespace sluice {

class metrics_registry;

// sluice_tombstones_kept_for_dead_letters: tombstones past tombstone.retention that the janitor
// keeps because a stored dead letter may replay an older change of their table (a backlog of
// letters nobody replays or purges holds them: alert on it growing). Stage: apply (the
// tombstone janitor reports after each pass). Lifecycle: after the registry, destroyed before
// it. Threading: any thread (the gauge is atomic).
class tombstone_probe {
 public:
  explicit tombstone_probe(metrics_registry& registry);

  void kept(size_t tombstones);

 private:
  prometheus::Gauge& _kept;
};

}  // namespace sluice
