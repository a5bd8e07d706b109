#pragma once

namespace prometheus {
class Counter;
class Gauge;
}  // namespace prometheus

namespace sluice {

class metrics_registry;

// sluice_target_up{target} and sluice_target_reconnects_total{target}, and on PostgreSQL their
// first names as well, sluice_postgres_up and sluice_postgres_reconnects_total (the registry
// has them only then). Stage: apply (the sessions' health, through apply/target_health.h).
// Lifecycle: after the registry, destroyed before it. Threading: any thread (the series are
// atomic).
class target_probe {
 public:
  explicit target_probe(metrics_registry& registry);

  void up(bool reachable);
  void reconnected();

 private:
  prometheus::Gauge& _up;
  prometheus::Counter& _reconnects;
  prometheus::Gauge* _postgres_up;  // nullptr unless the target is PostgreSQL
  prometheus::Counter* _postgres_reconnects;
};

}  // namespace sluice
