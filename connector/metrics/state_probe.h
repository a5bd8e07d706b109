#pragma once

#include <array>
#include <string>
#include <string_view>

#include "connector/base/connector_state.h"

namespace prometheus {
class Gauge;
}  // namespace prometheus

namespace sluice {

class metrics_registry;

// sluice_state{state}: 1 for the connector's current state, 0 for the six others
// (SPEC §5 states). Stage: runtime (whoever changes the state_holder calls set()).
//
// Lifecycle: after the registry, destroyed before it. Threading: set() may be called from
// any thread, but two concurrent set() calls may briefly show two states at 1; call it
// from the thread that owns the state (the pipeline's).
class state_probe {
 public:
  static constexpr std::array<connector_state, 7> states = {
      connector_state::starting, connector_state::running, connector_state::degraded,
      connector_state::draining, connector_state::paused,  connector_state::failed,
      connector_state::stopped};

  explicit state_probe(metrics_registry& registry);

  void set(connector_state s);
  // By name (STARTING, RUNNING, DEGRADED, DRAINING, PAUSED, FAILED, STOPPED); an unknown name sets
  // every state to 0 and returns false.
  bool set(std::string_view name);
  // sluice_degraded{dependency}: whether that dependency holds the connector DEGRADED.
  void degraded(const std::string& dependency, bool on);

 private:
  metrics_registry& _registry;
  std::array<prometheus::Gauge*, states.size()> _gauges{};
};

}  // namespace sluice
