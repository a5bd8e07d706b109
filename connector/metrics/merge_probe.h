#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace prometheus {
class Counter;
}  // namespace prometheus

namespace sluice {

class metrics_registry;

// Merge-stage metrics: sluice_changes_total{table,outcome} with outcome collapsed (a change
// folded into another of the same key in its batch) and csn_conflict (same key and CSN,
// different images: one kept by the fixed rule). Both series of a table appear at its first
// count. Count per batch, not per change.
//
// Lifecycle: after the registry, destroyed before it. Threading: thread-safe; instances on
// the same registry resolve to the same series.
class merge_probe {
 public:
  explicit merge_probe(metrics_registry& registry);

  void collapsed(std::string_view table, uint64_t n);
  void csn_conflicts(std::string_view table, uint64_t n);

 private:
  struct series {
    prometheus::Counter* collapsed;
    prometheus::Counter* csn_conflict;
  };
  series& of(std::string_view table);

  metrics_registry& _registry;
  std::mutex _mutex;  // guards the cache
  std::map<std::string, series, std::less<>> _tables;
};

}  // namespace sluice
