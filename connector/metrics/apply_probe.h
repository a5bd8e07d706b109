#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sinks/target_error.h"

namespace prometheus {
class Counter;
class Gauge;
class Histogram;
}  // namespace prometheus

namespace sluice {

class metrics_registry;

// Apply-stage metrics, recorded once a batch transaction has committed:
//   sluice_changes_total{table,outcome}  applied | deleted | stale | missing (insert.mode
//   update: changes of rows the table does not hold, not made)
//   sluice_batch_rows, sluice_batch_apply_seconds (one observation per transaction)
//   sluice_target_errors_total{target,code,action}, and on PostgreSQL
//   sluice_postgres_errors_total{sqlstate}
//   sluice_end_to_end_latency_seconds (one observation per message: Kafka timestamp → commit)
//   sluice_replication_lag_seconds{table} (now − source timestamp of the newest applied
//   change; caught_up() sets every table this probe knows to 0 when nothing is pending)
// A table's series appear at its first count.
//
// Lifecycle: after the registry, destroyed before it. Threading: thread-safe; one instance
// may serve every apply lane (and the consumer thread's caught_up()). Instances on the same
// registry resolve to the same series.
class apply_probe {
 public:
  explicit apply_probe(metrics_registry& registry);

  void applied(std::string_view table, uint64_t n);
  void deleted(std::string_view table, uint64_t n);
  void stale(std::string_view table, uint64_t n);
  void missing(std::string_view table, uint64_t n);
  void batch(uint64_t rows, double seconds);
  // One error of the target, whatever became of it. Its code is error.code, else its SQLSTATE;
  // an error without either (e.g. a broken connection) counts as "unknown". On PostgreSQL it
  // is counted in sluice_postgres_errors_total{sqlstate} as well.
  void target_error(const target_error_class& error);
  void end_to_end(double seconds);
  // One observation per message of a committed batch: now − its Kafka timestamp (messages
  // without a timestamp, 0, are skipped). Counted into buckets here, then added in one step.
  void end_to_end(std::span<const int64_t> message_timestamps_ns, int64_t now_ns);
  void replication_lag(std::string_view table, double seconds);
  // Nothing is pending any more: every table's replication lag goes to 0.
  void caught_up();

 private:
  struct series {
    prometheus::Counter* applied;
    prometheus::Counter* deleted;
    prometheus::Counter* stale;
    prometheus::Gauge* replication_lag;
  };
  series& of(std::string_view table);

  metrics_registry& _registry;
  prometheus::Histogram& _batch_rows;
  prometheus::Histogram& _batch_seconds;
  prometheus::Histogram& _end_to_end;
  std::vector<double> _bucket_increments;  // scratch for end_to_end(span), under _mutex
  std::mutex _mutex;  // guards the two caches (metric values are atomic themselves)
  std::map<std::string, series, std::less<>> _tables;
  std::map<std::string, prometheus::Counter*, std::less<>> _postgres_errors;  // by SQLSTATE
  std::map<std::pair<std::string, target_error_action>, prometheus::Counter*> _target_errors;
};

}  // namespace sluice
