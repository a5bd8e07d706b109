#pragma once

#include <cstdint>

namespace prometheus {
class Gauge;
}  // namespace prometheus

namespace sluice {

class metrics_registry;

// sluice_pending_chunks: parts of chunked records held until their siblings arrive.
// Stage: decode (the chunk reassembly). Lifecycle: after the registry, destroyed before it.
// Threading: any thread (the gauge is atomic).
class chunk_probe {
 public:
  explicit chunk_probe(metrics_registry& registry);

  void pending(uint64_t chunks);

 private:
  prometheus::Gauge& _pending;
};

}  // namespace sluice
