#include "connector/metrics/tombstone_probe.h"

#include <prometheus/gauge.h>

#include "connector/metrics/metrics_registry.h"

namespace sluice {

tombstone_probe::tombstone_probe(metrics_registry& registry) : _kept(registry.tombstones_kept()) {}

void tombstone_probe::kept(size_t tombstones) {
  _kept.Set(static_cast<double>(tombstones));
}

}  // namespace sluice
