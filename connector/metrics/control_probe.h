#pragma once

#include <map>
#include <string>

#include "sinks/connector_control.h"

namespace prometheus {
class Gauge;
}  // namespace prometheus

namespace sluice {

class metrics_registry;

// sluice_members{status}, sluice_member_heartbeat_age_seconds{worker_id} and
// sluice_target_state{state}, from each control view a member reads (connector/control/).
// A member no longer in the view loses its series.
//
// Lifecycle: after the registry, destroyed before it. Threading: observe() from one thread
// (the member agent's).
class control_probe {
 public:
  explicit control_probe(metrics_registry& registry);
  void observe(const sink::control_view& v, int64_t live_within_ms);

 private:
  metrics_registry& _registry;
  prometheus::Gauge* _live;
  prometheus::Gauge* _stale;
  std::map<std::string, prometheus::Gauge*> _ages;  // by worker_id
};

}  // namespace sluice
