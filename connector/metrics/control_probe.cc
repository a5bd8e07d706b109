#include "connector/metrics/control_probe.h"

#include <set>

#include <prometheus/family.h>
#include <prometheus/gauge.h>

#include "connector/metrics/metrics_registry.h"

namespace sluice {

control_probe::control_probe(metrics_registry& registry)
    : _registry(registry),
      _live(&registry.members().Add({{"status", "live"}})),
      _stale(&registry.members().Add({{"status", "stale"}})) {
  for (sink::target_state s :
       {sink::target_state::running, sink::target_state::paused, sink::target_state::stopped}) {
    registry.target_state().Add({{"state", sink::to_string(s)}}).Set(0);
  }
}

void control_probe::observe(const sink::control_view& v, int64_t live_within_ms) {
  for (sink::target_state s :
       {sink::target_state::running, sink::target_state::paused, sink::target_state::stopped}) {
    _registry.target_state().Add({{"state", sink::to_string(s)}}).Set(s == v.target ? 1 : 0);
  }
  size_t live = 0;
  std::set<std::string> seen;
  for (const sink::member_record& m : v.members) {
    if (m.age_ms < live_within_ms) ++live;
    auto [it, added] = _ages.try_emplace(m.heartbeat.worker_id, nullptr);
    if (added)
      it->second = &_registry.member_heartbeat_age().Add({{"worker_id", m.heartbeat.worker_id}});
    it->second->Set(static_cast<double>(m.age_ms) / 1000.0);
    seen.insert(m.heartbeat.worker_id);
  }
  for (auto it = _ages.begin(); it != _ages.end();) {
    if (seen.count(it->first) != 0) {
      ++it;
      continue;
    }
    _registry.member_heartbeat_age().Remove(it->second);
    it = _ages.erase(it);
  }
  _live->Set(static_cast<double>(live));
  _stale->Set(static_cast<double>(v.members.size() - live));
}

}  // namespace sluice
