#include "connector/runtime/connector_state.h"

namespace sluice {

const char* to_string(connector_state s) {
  switch (s) {
    case connector_state::starting:
      return "STARTING";
    case connector_state::running:
      return "RUNNING";
    case connector_state::draining:
      return "DRAINING";
    case connector_state::paused:
      return "PAUSED";
    case connector_state::failed:
      return "FAILED";
    case connector_state::stopped:
      return "STOPPED";
  }
  return "UNKNOWN";
}

state_holder::state_holder(std::function<void(connector_state)> on_change)
    : _on_change(std::move(on_change)) {}

bool state_holder::set(connector_state s) {
  std::lock_guard lock(_mutex);
  if (_state.load() == connector_state::failed) return false;
  _state.store(s);
  if (_on_change) _on_change(s);
  return true;
}

void state_holder::fail(std::string reason) {
  std::lock_guard lock(_mutex);
  if (_state.load() == connector_state::failed) return;
  _reason = std::move(reason);
  _state.store(connector_state::failed);
  if (_on_change) _on_change(connector_state::failed);
}

std::string state_holder::reason() const {
  std::lock_guard lock(_mutex);
  return _reason;
}

}  // namespace sluice
