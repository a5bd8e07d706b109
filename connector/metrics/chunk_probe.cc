#include "connector/metrics/chunk_probe.h"

#include <prometheus/gauge.h>

#include "connector/metrics/metrics_registry.h"

namespace sluice {

chunk_probe::chunk_probe(metrics_registry& registry) : _pending(registry.pending_chunks()) {}

void chunk_probe::pending(uint64_t chunks) {
  _pending.Set(static_cast<double>(chunks));
}

uint64_t chunk_probe::pending() const {
  return static_cast<uint64_t>(_pending.Value());
}

}  // namespace sluice
