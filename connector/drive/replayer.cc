#include "connector/drive/replayer.h"

#include "connector/base/sink_options.h"
#include "sinks/batch_applier.h"

namespace sluice {
namespace {

void add_stats(merge_stats& total, const merge_stats& s) {
  total.input += s.input;
  total.rows += s.rows;
  total.collapsed += s.collapsed;
  total.duplicates += s.duplicates;
  total.csn_conflicts += s.csn_conflicts;
}

}  // namespace

replayer::replayer(const config& c, sink::batch_applier& applier,
                   std::function<void(std::string_view)> report)
    : _config(c),
      _applier(applier),
      _report(std::move(report)),
      _target(make_target(c)),
      _keys(*_target, retry_policy::bounded(), make_applier_options(c).routing),
      _decoders(c),
      _preparer(c, _decoders, /*lanes=*/1) {
  _keys.prepare_as(c);
  _decoders.catalog().set_key_resolver(
      [this](const table_name& source, std::string_view topic) { return _keys(source, topic); });
}

bool replayer::prepare(source_message& m) {
  switch (_preparer.add(m, 0)) {
    case preparer::verdict::stop:
      _failure = _preparer.last_reason();
      return false;
    case preparer::verdict::dead_lettered:
      _report(_preparer.last_reason());
      if (m.unreadable && m.raw.topic.empty()) {
        ++_totals.invalid_lines;
      } else {
        ++_totals.undecodable;
      }
      break;
    case preparer::verdict::decoded:
    case preparer::verdict::filtered:
      break;
  }
  if (m.raw.timestamp > _newest) _newest = m.raw.timestamp;
  if (!m.unreadable) ++_totals.messages;
  ++_batch_messages;
  return true;
}

bool replayer::add(source_message& m) {
  if (!prepare(m)) return false;
  if (_batch_messages >= _config.batch.size || _preparer.bytes() >= _config.batch.max_bytes) {
    flush();
  }
  return true;
}

bool replayer::add_letter(source_message& m) {
  return prepare(m);
}

void replayer::add_changes(std::vector<change>& changes) {
  _preparer.add_changes(changes, 0);
  ++_totals.messages;
  ++_batch_messages;
}

void replayer::flush() {
  if (_batch_messages == 0) return;
  lane_batch batch = std::move(_preparer.take().front());
  _batch_messages = 0;
  _totals.changes += batch.merged.stats.input;
  _totals.catalog_updates += batch.catalog.size();
  _totals.ddl_records += batch.ddl.size();
  batch_metadata metadata{std::move(batch.catalog), std::move(batch.ddl), std::move(batch.pieces),
                          _newest};
  // No progress: a replay moves no offsets.
  const apply_stats stats = _applier.apply(batch.merged, batch.dead_letters, {}, metadata).stats;
  add_stats(_totals.merge, batch.merged.stats);
  _totals.applied += stats;
  ++_totals.batches;
}

}  // namespace sluice
