#include "connector/metrics/state_probe.h"

#include <prometheus/family.h>
#include <prometheus/gauge.h>

#include "connector/metrics/metrics_registry.h"

namespace sluice {

state_probe::state_probe(metrics_registry& registry) : _registry(registry) {
  for (size_t i = 0; i < states.size(); ++i) {
    _gauges[i] = &registry.state().Add({{"state", to_string(states[i])}});
  }
}

void state_probe::set(connector_state s) {
  // The new state goes to 1 before the old one goes to 0: a scrape in between sees two
  // states rather than none.
  for (size_t i = 0; i < states.size(); ++i) {
    if (states[i] == s) _gauges[i]->Set(1);
  }
  for (size_t i = 0; i < states.size(); ++i) {
    if (states[i] != s) _gauges[i]->Set(0);
  }
}

void state_probe::degraded(const std::string& dependency, bool on) {
  _registry.degraded().Add({{"dependency", dependency}}).Set(on ? 1 : 0);
}

bool state_probe::set(std::string_view name) {
  for (connector_state s : states) {
    if (name == to_string(s)) {
      set(s);
      return true;
    }
  }
  for (prometheus::Gauge* g : _gauges)
    g->Set(0);
  return false;
}

}  // namespace sluice
