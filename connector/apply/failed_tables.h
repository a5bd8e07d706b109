#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "connector/http/status_source.h"
#include "connector/metrics/ddl_probe.h"
#include "sinks/apply_stats.h"

namespace sluice {

// The target tables whose DDL fails (ddl.failure: dead_letter), fed by every apply lane's
// committed batches: a failure adds or updates its table; rows written to a table later (its
// cause was fixed) clear it. Also drives ddl_probe.
//
// Threading: thread-safe (lanes report, the HTTP thread lists).
class failed_tables {
 public:
  explicit failed_tables(metrics_registry& metrics) : _probe(metrics) {}

  void observe(const apply_stats& stats, int64_t now_ms);
  std::vector<failed_table_status> list() const;

 private:
  ddl_probe _probe;
  mutable std::mutex _mutex;
  std::map<std::string, failed_table_status> _tables;
};

}  // namespace sluice
