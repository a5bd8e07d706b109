#include "connector/metrics/target_probe.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>

#include "connector/metrics/metrics_registry.h"

namespace sluice {

target_probe::target_probe(metrics_registry& registry)
    : _up(registry.target_up()),
      _reconnects(registry.target_reconnects()),
      _postgres_up(registry.postgres_up()),
      _postgres_reconnects(registry.postgres_reconnects()) {}

void target_probe::up(bool reachable) {
  _up.Set(reachable ? 1 : 0);
  if (_postgres_up) _postgres_up->Set(reachable ? 1 : 0);
}

void target_probe::reconnected() {
  _reconnects.Increment();
  if (_postgres_reconnects) _postgres_reconnects->Increment();
}

}  // namespace sluice
