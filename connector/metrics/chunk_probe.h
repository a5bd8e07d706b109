#pragma once

#include <cstdint>

namespace prometheus {
class Gauge;
}  // namespace prometheus

namespace sluice {

class metrics_registry;

// sluice_pending_chunks: chunks of chunked records whose pieces wait in
// sluice.pending_fragments for the rest. Stage: apply (reassembly runs in the batch
// transaction; each lane reports the count it saw after its batch, and the pipeline counts
// again while idle, as lanes that counted concurrently may report in either order). Lifecycle:
// after the registry, destroyed before it. Threading: any thread (the gauge is atomic).
class chunk_probe {
 public:
  explicit chunk_probe(metrics_registry& registry);

  void pending(uint64_t chunks);
  // What the gauge shows now.
  uint64_t pending() const;

 private:
  prometheus::Gauge& _pending;
};

}  // namespace sluice
