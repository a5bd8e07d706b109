#include "connector/prepare/batch_preparer.h"

#include <map>

#include "connector/source/kafka_message.h"

namespace sluice {

batch_preparer::batch_preparer(const config& cfg, table_catalog& catalog,
                               partition_table& partitions, size_t lanes, metrics_registry& metrics)
    : _partitions(partitions),
      _decoders(cfg, catalog),
      _preparer(cfg, _decoders, lanes),
      _decode_probe(metrics),
      _merge_probe(metrics) {}

std::vector<lane_batch> batch_preparer::prepare(raw_batch&& raw) {
  std::map<topic_partition, std::pair<size_t, kafka_offset>> next;  // lane, next offset
  struct counts {
    uint64_t decoded = 0, dead = 0, filtered = 0;
  };
  std::map<std::string, counts> outcomes;  // by topic
  std::map<topic_partition, partition_table::entry> owned;
  std::map<size_t, std::string> poison;  // by lane

  for (const kafka_message& m : raw.messages) {
    const topic_partition tp = partition_of(*m);
    if (_poisoned.contains(tp)) continue;
    auto own = owned.find(tp);
    if (own == owned.end()) {
      auto e = _partitions.get(tp);
      if (!e) continue;  // revoked meanwhile: not ours to commit
      own = owned.emplace(tp, *e).first;
    }
    const size_t lane = own->second.lane;
    source_message s = to_source_message(*m);
    switch (_preparer.add(s, lane)) {
      case preparer::verdict::stop:
        _poisoned.insert(tp);
        poison[lane] = "cannot decode " + _preparer.last_reason();
        continue;  // commit what came before it, never move past it
      case preparer::verdict::dead_lettered:
        ++outcomes[tp.topic].dead;
        break;
      case preparer::verdict::filtered:
        ++outcomes[tp.topic].filtered;
        break;
      case preparer::verdict::decoded:
        ++outcomes[tp.topic].decoded;
        break;
    }
    next[tp] = {lane, kafka_offset{m->offset + 1}};
  }
  raw.messages.clear();  // decoded changes own their bytes

  std::vector<lane_batch> lanes = _preparer.take();
  for (lane_batch& lb : lanes)
    lb.generation = raw.generation;
  for (auto& [lane, text] : poison)
    lanes[lane].poison = std::move(text);
  for (const auto& [tp, where] : next) {
    const auto& [lane, offset] = where;
    const auto expected = _partitions.dispatch(tp, offset);
    if (!expected) continue;  // revoked while this batch was decoded: abandoned
    lanes[lane].progress.push_back({tp.topic, tp.partition, owned.at(tp).epoch, *expected, offset});
  }
  for (const lane_batch& lb : lanes) {
    for (const table_rows& t : lb.merged.tables) {
      const std::string name = t.table->name.qualified();
      if (t.collapsed) _merge_probe.collapsed(name, t.collapsed);
      if (t.csn_conflicts) _merge_probe.csn_conflicts(name, t.csn_conflicts);
    }
  }
  for (const auto& [topic, n] : outcomes) {
    if (n.decoded) _decode_probe.decoded(topic, n.decoded);
    if (n.dead) _decode_probe.dead_lettered(topic, n.dead);
    if (n.filtered) _decode_probe.filtered(topic, n.filtered);
  }
  return lanes;
}

}  // namespace sluice
