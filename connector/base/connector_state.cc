#include "connector/base/connector_state.h"

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

state_holder::state_holder(std::function<void(connector_state)> on_change,
                           std::function<void(const std::string&, bool)> on_degraded)
    : _on_change(std::move(on_change)), _on_degraded(std::move(on_degraded)) {}

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

void state_holder::degrade(const std::string& dependency, std::string reason) {
  std::lock_guard lock(_mutex);
  if (reason.empty()) {
    if (_degraded.erase(dependency) != 0 && _on_degraded) _on_degraded(dependency, false);
  } else {
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    auto [it, added] = _degraded.try_emplace(dependency, reason, now_ms);
    if (!added) it->second.first = std::move(reason);  // since: when it began
    if (added && _on_degraded) _on_degraded(dependency, true);
  }
  publish();
}

std::pair<std::string, int64_t> state_holder::degraded() const {
  std::lock_guard lock(_mutex);
  std::string why;
  int64_t since = 0;
  for (const auto& [dependency, d] : _degraded) {
    why += (why.empty() ? "" : "; ") + d.first;
    if (since == 0 || d.second < since) since = d.second;
  }
  return {why, since};
}

void state_holder::publish() {
  // Starting counts as running: a connector waiting for PostgreSQL at start-up is degraded.
  const bool overlaid = _base == connector_state::running || _base == connector_state::starting;
  const connector_state shown = overlaid && !_degraded.empty() ? connector_state::degraded : _base;
  if (shown == _state.load()) return;
  _state.store(shown);
  if (_on_change) _on_change(shown);
}

std::string state_holder::reason() const {
  std::lock_guard lock(_mutex);
  return _reason;
}

}  // namespace sluice
