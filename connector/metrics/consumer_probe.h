#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/named_type.h"

namespace prometheus {
class Counter;
class Gauge;
}  // namespace prometheus

namespace sluice {

class metrics_registry;

// Consume-stage metrics: sluice_rebalances_total and
// sluice_consumer_lag_messages{topic,partition} (high watermark − next offset committed in
// PostgreSQL). A partition's series is created on its first lag() and dropped by revoked(),
// so a scrape shows the partitions this process owns.
//
// Lifecycle: one per consumer (revoked() removes series other instances would not know
// of), after the registry, destroyed before it. Threading: thread-safe.
class consumer_probe {
 public:
  explicit consumer_probe(metrics_registry& registry);

  // A rebalance happened (an assignment or a revocation).
  void rebalance();
  // Negative lags (high watermark not known yet) are shown as 0.
  void lag(std::string_view topic, partition_id partition, int64_t messages);
  // How many assigned partitions another owner's epoch fences now.
  void fenced(size_t partitions);
  // The partition is no longer ours: its series disappears.
  void revoked(std::string_view topic, partition_id partition);

 private:
  // partition >= 0.
  prometheus::Gauge& lag_series(std::string_view topic, partition_id partition);

  metrics_registry& _registry;
  prometheus::Counter& _rebalances;
  prometheus::Gauge& _fenced;
  std::mutex _mutex;  // guards the cache
  // Per topic, indexed by partition number (partitions are small dense integers).
  std::map<std::string, std::vector<prometheus::Gauge*>, std::less<>> _lag;
};

}  // namespace sluice
