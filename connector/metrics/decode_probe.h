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

// Decode-stage metrics: sluice_messages_total{topic,outcome} with outcome decoded (the
// message gave changes, or nothing to apply), dead_lettered (errors.tolerance: all sent
// it to the dead letters) or filtered (its changes were all of tables that tables.include /
// tables.exclude leave out). The series of a topic appear at its first count, so rate()
// works from the start. Count per batch (n > 1), not per message, on hot paths.
//
// Lifecycle: after the registry, destroyed before it. Threading: thread-safe; instances on
// the same registry resolve to the same series.
class decode_probe {
 public:
  explicit decode_probe(metrics_registry& registry);

  void decoded(std::string_view topic, uint64_t n = 1);
  void dead_lettered(std::string_view topic, uint64_t n = 1);
  void filtered(std::string_view topic, uint64_t n = 1);

 private:
  struct series {
    prometheus::Counter* decoded;
    prometheus::Counter* dead_lettered;
    prometheus::Counter* filtered;
  };
  series& of(std::string_view topic);

  metrics_registry& _registry;
  std::mutex _mutex;  // guards the cache
  std::map<std::string, series, std::less<>> _topics;
};

}  // namespace sluice
