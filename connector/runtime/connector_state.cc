#include "connector/runtime/connector_state.h"

#include <chrono>

namespace sluice {

const char* to_string(connector_state s) {
  switch (s) {
    case connector_state::starting:
      return "STARTING";
    case connector_state::running:
      return "RUNNING";
    case connector_state::degraded:
      return "DEGRADED";
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
  if (_base == connector_state::failed) return false;
  _base = s == connector_state::degraded ? connector_state::running : s;
  publish();
  return true;
}

void state_holder::fail(std::string reason) {
  std::lock_guard lock(_mutex);
  if (_base == connector_state::failed) return;
  _reason = std::move(reason);
  _base = connector_state::failed;
  publish();
}

void state_holder::degrade(std::string reason) {
  std::lock_guard lock(_mutex);
  if (!reason.empty() && _degraded_reason.empty()) {
    _degraded_since_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  }
  _degraded_reason = std::move(reason);
  publish();
}

std::pair<std::string, int64_t> state_holder::degraded() const {
  std::lock_guard lock(_mutex);
  return {_degraded_reason, _degraded_reason.empty() ? 0 : _degraded_since_ms};
}

void state_holder::publish() {
  // Starting counts as running: a connector waiting for PostgreSQL at start-up is degraded.
  const bool overlaid = _base == connector_state::running || _base == connector_state::starting;
  const connector_state shown =
      overlaid && !_degraded_reason.empty() ? connector_state::degraded : _base;
  if (shown == _state.load()) return;
  _state.store(shown);
  if (_on_change) _on_change(shown);
}

std::string state_holder::reason() const {
  std::lock_guard lock(_mutex);
  return _reason;
}

}  // namespace sluice
