#include "connector/base/partition_table.h"

namespace sluice {

void partition_table::claim(const topic_partition& tp, owner_epoch epoch, kafka_offset committed,
                            size_t lane) {
  std::lock_guard lock(_mutex);
  entry& e = _entries[tp];
  e = entry{};
  e.epoch = epoch;
  e.committed = committed;
  e.dispatched = committed;
  e.lane = lane;
}

void partition_table::remove(const topic_partition& tp) {
  std::lock_guard lock(_mutex);
  _entries.erase(tp);
}

bool partition_table::owns(const topic_partition& tp) const {
  std::lock_guard lock(_mutex);
  return _entries.contains(tp);
}

std::optional<partition_table::entry> partition_table::get(const topic_partition& tp) const {
  std::lock_guard lock(_mutex);
  auto it = _entries.find(tp);
  if (it == _entries.end()) return std::nullopt;
  return it->second;
}

std::optional<kafka_offset> partition_table::dispatch(const topic_partition& tp,
                                                      kafka_offset next) {
  std::lock_guard lock(_mutex);
  auto it = _entries.find(tp);
  if (it == _entries.end()) return std::nullopt;
  entry& e = it->second;
  const kafka_offset expected = e.dispatched;
  e.dispatched = next;
  return expected;
}

void partition_table::committed(const topic_partition& tp, kafka_offset next) {
  std::lock_guard lock(_mutex);
  auto it = _entries.find(tp);
  if (it != _entries.end()) it->second.committed = next;
}

void partition_table::high_watermark(const topic_partition& tp, int64_t hw) {
  std::lock_guard lock(_mutex);
  auto it = _entries.find(tp);
  if (it != _entries.end()) it->second.high_watermark = hw;
}

void partition_table::rewind_to_committed() {
  std::lock_guard lock(_mutex);
  for (auto& [_, e] : _entries)
    e.dispatched = e.committed;
}

void partition_table::rewind_to_committed(const topic_partition& tp) {
  std::lock_guard lock(_mutex);
  auto it = _entries.find(tp);
  if (it != _entries.end()) it->second.dispatched = it->second.committed;
}

std::vector<std::pair<topic_partition, partition_table::entry>> partition_table::snapshot() const {
  std::lock_guard lock(_mutex);
  return {_entries.begin(), _entries.end()};
}

}  // namespace sluice
