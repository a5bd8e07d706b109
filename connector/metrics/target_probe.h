#pragma once

namespace prometheus {
class Counter;
class Gauge;
}  // namespace prometheus

namespace sluice {

class metrics_registry;

// sluice_postgres_up and sluice_postgres_reconnects_total. Stage: apply (the sessions' health,
// through apply/target_health.h). Lifecycle: after the registry, destroyed before it.
// Threading: any thread (the series are atomic).
class target_probe {
 public:
  explicit target_probe(metrics_registry& registry);

  void up(bool reachable);
  void reconnected();

 private:
  prometheus::Gauge& _up;
  prometheus::Counter& _reconnects;
};

}  // namespace sluice
