#include "connector/metrics/apply_probe.h"

#include <algorithm>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include "connector/base/target_names.h"
#include "connector/metrics/metrics_registry.h"

namespace sluice {

apply_probe::apply_probe(metrics_registry& registry)
    : _registry(registry),
      _batch_rows(registry.batch_rows()),
      _batch_seconds(registry.batch_apply_seconds()),
      _end_to_end(registry.end_to_end_latency()) {}

void apply_probe::applied(std::string_view table, uint64_t n) {
  std::lock_guard lock(_mutex);
  of(table).applied->Increment(static_cast<double>(n));
}

void apply_probe::deleted(std::string_view table, uint64_t n) {
  std::lock_guard lock(_mutex);
  of(table).deleted->Increment(static_cast<double>(n));
}

void apply_probe::stale(std::string_view table, uint64_t n) {
  std::lock_guard lock(_mutex);
  of(table).stale->Increment(static_cast<double>(n));
}

void apply_probe::missing(std::string_view table, uint64_t n) {
  std::lock_guard lock(_mutex);
  // Only under insert.mode update: the series appears at its first count.
  _registry.changes()
      .Add({{"table", std::string(table)}, {"outcome", "missing"}})
      .Increment(static_cast<double>(n));
}

void apply_probe::batch(uint64_t rows, double seconds) {
  _batch_rows.Observe(static_cast<double>(rows));
  _batch_seconds.Observe(seconds);
}

void apply_probe::target_error(const target_error_class& error) {
  std::string_view code = error.code.empty() ? error.sqlstate : error.code;
  if (code.empty()) code = "unknown";
  std::lock_guard lock(_mutex);
  auto key = std::make_pair(std::string(code), error.action);
  auto it = _target_errors.find(key);
  if (it == _target_errors.end()) {
    prometheus::Counter* c =
        &_registry.target_errors().Add({{"target", std::string(target_id(_registry.target()))},
                                        {"code", key.first},
                                        {"action", to_string(error.action)}});
    it = _target_errors.emplace(std::move(key), c).first;
  }
  it->second->Increment();

  prometheus::Family<prometheus::Counter>* postgres = _registry.postgres_errors();
  if (postgres == nullptr) return;
  // sluice_postgres_errors_total as it always was: by SQLSTATE alone.
  const std::string sqlstate = error.sqlstate.empty() ? "unknown" : error.sqlstate;
  auto p = _postgres_errors.find(sqlstate);
  if (p == _postgres_errors.end())
    p = _postgres_errors.emplace(sqlstate, &postgres->Add({{"sqlstate", sqlstate}})).first;
  p->second->Increment();
}

void apply_probe::end_to_end(double seconds) {
  _end_to_end.Observe(seconds > 0 ? seconds : 0.0);
}

void apply_probe::end_to_end(std::span<const int64_t> message_timestamps_ns, int64_t now_ns) {
  const std::vector<double>& bounds = metrics_registry::end_to_end_buckets();
  std::lock_guard lock(_mutex);
  _bucket_increments.assign(bounds.size() + 1, 0.0);
  double sum = 0;
  bool any = false;
  for (const int64_t ts : message_timestamps_ns) {
    if (ts <= 0) continue;
    const double seconds = now_ns > ts ? static_cast<double>(now_ns - ts) / 1e9 : 0.0;
    // Prometheus buckets are cumulative upper bounds (le); ObserveMultiple takes per-bucket
    // increments, the last one for +Inf.
    const size_t bucket = static_cast<size_t>(
        std::lower_bound(bounds.begin(), bounds.end(), seconds) - bounds.begin());
    _bucket_increments[bucket] += 1;
    sum += seconds;
    any = true;
  }
  if (any) _end_to_end.ObserveMultiple(_bucket_increments, sum);
}

void apply_probe::replication_lag(std::string_view table, double seconds) {
  std::lock_guard lock(_mutex);
  of(table).replication_lag->Set(seconds > 0 ? seconds : 0.0);
}

void apply_probe::caught_up() {
  std::lock_guard lock(_mutex);
  for (auto& [name, s] : _tables)
    s.replication_lag->Set(0);
}

apply_probe::series& apply_probe::of(std::string_view table) {
  auto it = _tables.find(table);
  if (it != _tables.end()) return it->second;
  auto& changes = _registry.changes();
  const std::string name(table);
  series s{&changes.Add({{"table", name}, {"outcome", "applied"}}),
           &changes.Add({{"table", name}, {"outcome", "deleted"}}),
           &changes.Add({{"table", name}, {"outcome", "stale"}}),
           &_registry.replication_lag().Add({{"table", name}})};
  return _tables.emplace(name, s).first->second;
}

}  // namespace sluice
