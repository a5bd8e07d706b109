#include "connector/apply/failed_tables.h"

namespace sluice {

void failed_tables::observe(const apply_stats& stats, int64_t now_ms) {
  std::lock_guard lock(_mutex);  // once per batch
  if (stats.ddl_failures.empty() && _tables.empty()) return;
  for (const table_ddl_failure& f : stats.ddl_failures) {
    failed_table_status& t = _tables[f.target];
    if (t.table.empty()) {
      t.table = f.target;
      t.since_ms = now_ms;
    }
    t.error = f.error;
    t.last_ms = now_ms;
    for (const table_apply_stats& s : stats.tables) {
      if (s.target == f.target) t.dead_lettered += s.rejected;
    }
    _probe.failed(f.target);
  }
  for (const table_apply_stats& s : stats.tables) {
    if (s.written + s.deleted == 0) continue;
    auto it = _tables.find(s.target);
    if (it == _tables.end()) continue;
    _tables.erase(it);
    _probe.recovered(s.target);
  }
}

std::vector<failed_table_status> failed_tables::list() const {
  std::lock_guard lock(_mutex);
  std::vector<failed_table_status> out;
  out.reserve(_tables.size());
  for (const auto& [_, t] : _tables)
    out.push_back(t);
  return out;
}

}  // namespace sluice
