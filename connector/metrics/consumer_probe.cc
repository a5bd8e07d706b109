#include "connector/metrics/consumer_probe.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>

#include "connector/metrics/metrics_registry.h"

namespace sluice {

consumer_probe::consumer_probe(metrics_registry& registry)
    : _registry(registry),
      _rebalances(registry.rebalances()),
      _fenced(registry.fenced_partitions()) {}

void consumer_probe::fenced(size_t partitions) {
  _fenced.Set(static_cast<double>(partitions));
}

void consumer_probe::rebalance() {
  _rebalances.Increment();
}

void consumer_probe::lag(std::string_view topic, partition_id partition, int64_t messages) {
  if (partition.value() < 0) return;  // not a real partition
  std::lock_guard lock(_mutex);
  lag_series(topic, partition).Set(messages > 0 ? static_cast<double>(messages) : 0.0);
}

void consumer_probe::revoked(std::string_view topic, partition_id partition) {
  std::lock_guard lock(_mutex);
  auto it = _lag.find(topic);
  if (it == _lag.end() || partition.value() < 0) return;
  const auto index = static_cast<size_t>(partition.value());
  if (index >= it->second.size() || it->second[index] == nullptr) return;
  _registry.consumer_lag().Remove(it->second[index]);
  it->second[index] = nullptr;
}

prometheus::Gauge& consumer_probe::lag_series(std::string_view topic, partition_id partition) {
  auto it = _lag.find(topic);
  if (it == _lag.end())
    it = _lag.emplace(std::string(topic), std::vector<prometheus::Gauge*>()).first;
  const auto index = static_cast<size_t>(partition.value());
  if (index >= it->second.size()) it->second.resize(index + 1, nullptr);
  prometheus::Gauge*& g = it->second[index];
  if (g == nullptr) {
    g = &_registry.consumer_lag().Add(
        {{"topic", it->first}, {"partition", std::to_string(partition.value())}});
  }
  return *g;
}

}  // namespace sluice
