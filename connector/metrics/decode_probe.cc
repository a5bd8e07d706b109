#include "connector/metrics/decode_probe.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>

#include "connector/metrics/metrics_registry.h"

namespace sluice {

decode_probe::decode_probe(metrics_registry& registry) : _registry(registry) {}

void decode_probe::decoded(std::string_view topic, uint64_t n) {
  std::lock_guard lock(_mutex);
  of(topic).decoded->Increment(static_cast<double>(n));
}

void decode_probe::dead_lettered(std::string_view topic, uint64_t n) {
  std::lock_guard lock(_mutex);
  of(topic).dead_lettered->Increment(static_cast<double>(n));
}

void decode_probe::filtered(std::string_view topic, uint64_t n) {
  std::lock_guard lock(_mutex);
  of(topic).filtered->Increment(static_cast<double>(n));
}

decode_probe::series& decode_probe::of(std::string_view topic) {
  auto it = _topics.find(topic);
  if (it != _topics.end()) return it->second;
  auto& family = _registry.messages();
  const std::string name(topic);
  series s{&family.Add({{"topic", name}, {"outcome", "decoded"}}),
           &family.Add({{"topic", name}, {"outcome", "dead_lettered"}}),
           &family.Add({{"topic", name}, {"outcome", "filtered"}})};
  return _topics.emplace(name, s).first->second;
}

}  // namespace sluice
