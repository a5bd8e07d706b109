#include "connector/metrics/merge_probe.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>

#include "connector/metrics/metrics_registry.h"

namespace sluice {

merge_probe::merge_probe(metrics_registry& registry) : _registry(registry) {}

void merge_probe::collapsed(std::string_view table, uint64_t n) {
  std::lock_guard lock(_mutex);
  of(table).collapsed->Increment(static_cast<double>(n));
}

void merge_probe::csn_conflicts(std::string_view table, uint64_t n) {
  std::lock_guard lock(_mutex);
  of(table).csn_conflict->Increment(static_cast<double>(n));
}

merge_probe::series& merge_probe::of(std::string_view table) {
  auto it = _tables.find(table);
  if (it != _tables.end()) return it->second;
  auto& family = _registry.changes();
  const std::string name(table);
  series s{&family.Add({{"table", name}, {"outcome", "collapsed"}}),
           &family.Add({{"table", name}, {"outcome", "csn_conflict"}})};
  return _tables.emplace(name, s).first->second;
}

}  // namespace sluice
