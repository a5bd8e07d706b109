#include "connector/metrics/chunk_probe.h"

#include <prometheus/gauge.h>

#include "connector/metrics/metrics_registry.h"

namespace sluice {

chunk_probe::chunk_probe(metrics_registry& registry) : _pending(registry.pending_chunks()) {}

void chunk_probe::pending(uint64_t chunks) {
  _pending.Set(static_cast<double>(chunks));
}

}  // namespace sluice
