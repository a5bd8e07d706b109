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

void state_holder::fail(std::string reason) {
  std::lock_guard lock(_mutex);
  _reason = std::move(reason);
  _state.store(connector_state::failed);
}

std::string state_holder::reason() const {
  std::lock_guard lock(_mutex);
  return _reason;
}

}  // namespace sluice
