#include "core/model/decoded.h"

#include <utility>

namespace sluice {

change& decode_output::add_change() {
  if (_spare.empty()) return changes.emplace_back();
  if (changes.empty() && _spare.size() == 1) {
    // A message's one change after clear() swapped the vectors: they trade places again
    // rather than the change being moved out and destroyed (~5% of a GoldenGate decode).
    std::swap(changes, _spare);
  } else {
    changes.emplace_back(std::move(_spare.back()));
    _spare.pop_back();
  }
  change& c = changes.back();
  // Back to the default state, keeping what has capacity.
  c.op = op_kind::upsert;
  c.table = nullptr;
  c.key.columns.clear();
  c.key.values.clear();
  c.key.canonical.clear();
  c.old_key.reset();
  c.after.clear();
  c.partial = false;
  c.seq = csn();
  c.source.tx.clear();
  c.source.source_ts = timestamp_ns{0};
  c.source.read = read_method::cdc;
  c.source.origin.topic.clear();
  c.source.origin.partition = partition_id{0};
  c.source.origin.offset = kafka_offset{0};
  c.source.origin.timestamp = timestamp_ns{0};
  return c;
}

void decode_output::truncate_changes(size_t size) {
  while (changes.size() > size) {
    if (_spare.size() < max_spare) _spare.push_back(std::move(changes.back()));
    changes.pop_back();
  }
}

image decode_output::recycled_image() {
  if (_spare_images.empty()) return {};
  image img = std::move(_spare_images.back());
  _spare_images.pop_back();
  return img;
}

void decode_output::clear() {
  if (_spare.empty()) {
    // The usual case: add_change() took every spare back. The vectors trade places instead
    // of each change being moved (a change is a few hundred bytes with an inline csn: moving
    // each into the spares cost ~300 instructions per event). Both keep their capacity.
    for (change& c : changes) {
      if (_spare_images.size() >= max_spare) break;
      if (!c.after.empty()) _spare_images.push_back(std::move(c.after));
    }
    std::swap(changes, _spare);
    if (_spare.size() > max_spare) _spare.resize(max_spare);
  }
  for (change& c : changes) {
    if (_spare.size() >= max_spare) break;
    if (!c.after.empty() && _spare_images.size() < max_spare) {
      _spare_images.push_back(std::move(c.after));
    }
    _spare.push_back(std::move(c));
  }
  changes.clear();
  catalog.clear();
  ddl.clear();
  pieces.clear();
}

}  // namespace sluice
