#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace prometheus {
class Counter;
class Gauge;
}  // namespace prometheus

namespace sluice {

class metrics_registry;

// DDL-failure metrics (ddl.failure: dead_letter):
//   sluice_ddl_failures_total{table}  one per committed batch whose DDL failed on the table
//   sluice_table_ddl_failed{table}    1 from a failure until rows are written there again
//
// Lifecycle: after the registry, destroyed before it. Threading: thread-safe.
class ddl_probe {
 public:
  explicit ddl_probe(metrics_registry& registry);

  void failed(std::string_view table);
  void recovered(std::string_view table);

 private:
  struct series {
    prometheus::Counter* failures;
    prometheus::Gauge* failing;
  };
  series& of(std::string_view table);

  metrics_registry& _registry;
  std::mutex _mutex;
  std::map<std::string, series, std::less<>> _tables;
};

}  // namespace sluice
