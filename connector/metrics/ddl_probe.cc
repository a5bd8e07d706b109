#include "connector/metrics/ddl_probe.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>

#include "connector/metrics/metrics_registry.h"

namespace sluice {

ddl_probe::ddl_probe(metrics_registry& registry) : _registry(registry) {}

void ddl_probe::failed(std::string_view table) {
  std::lock_guard lock(_mutex);
  series& s = of(table);
  s.failures->Increment();
  s.failing->Set(1);
}

void ddl_probe::recovered(std::string_view table) {
  std::lock_guard lock(_mutex);
  of(table).failing->Set(0);
}

ddl_probe::series& ddl_probe::of(std::string_view table) {
  auto it = _tables.find(table);
  if (it != _tables.end()) return it->second;
  const std::string name(table);
  series s{&_registry.ddl_failures().Add({{"table", name}}),
           &_registry.table_ddl_failed().Add({{"table", name}})};
  return _tables.emplace(name, s).first->second;
}

}  // namespace sluice
