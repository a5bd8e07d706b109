#include "connector/metrics/postgres_probe.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>

#include "connector/metrics/metrics_registry.h"

namespace sluice {

postgres_probe::postgres_probe(metrics_registry& registry)
    : _up(registry.postgres_up()), _reconnects(registry.postgres_reconnects()) {}

void postgres_probe::up(bool reachable) {
  _up.Set(reachable ? 1 : 0);
}

void postgres_probe::reconnected() {
  _reconnects.Increment();
}

}  // namespace sluice
