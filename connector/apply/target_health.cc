#include "connector/apply/target_health.h"

#include "connector/base/log.h"
#include "connector/base/target_names.h"

namespace sluice {

target_health::target_health(state_holder& state, target_probe& probe, apply_probe& errors,
                             target_kind target)
    : _state(state),
      _probe(probe),
      _errors(errors),
      _id(target_id(target)),
      _statements(_id + " statements"),
      _name(target_display_name(target)) {}

void target_health::error(const target_error_class& error) {
  _errors.target_error(error);
}

void target_health::unreachable(const std::string& role, const target_error_class& why) {
  std::lock_guard lock(_mutex);
  const bool first = _down.empty();
  _down[role] = why.message;
  if (!first) return;
  _since = std::chrono::steady_clock::now();
  _probe.up(false);
  _state.degrade(_id, _name + " unreachable (" + role + "): " + why.message);
  SLUICE_LOG(warn, _id,
             _name << " unreachable (" << role << ": " << why.message
                   << "): DEGRADED, waiting it out with the partitions paused");
}

void target_health::reachable(const std::string& role) {
  std::lock_guard lock(_mutex);
  forget(role, _name + " reachable again");
}

void target_health::withdrawn(const std::string& role) {
  std::lock_guard lock(_mutex);
  forget(role, "no session waits for " + _name + " any more");
}

void target_health::forget(const std::string& role, const std::string& what) {
  if (_down.erase(role) == 0 || !_down.empty()) return;
  const auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - _since).count();
  _probe.up(true);
  _state.degrade(_id, "");
  SLUICE_LOG(info, _id, what << " after " << static_cast<int64_t>(seconds) << " s");
}

void target_health::reconnected(const std::string& role) {
  _probe.reconnected();
  SLUICE_LOG(debug, _id, role << ": connected again");
}

void target_health::stalled(const std::string& role, const target_error_class& why) {
  std::lock_guard lock(_mutex);
  const std::string& code = why.code.empty() ? why.sqlstate : why.code;
  const std::string text = code.empty() ? why.message : code + " " + why.message;
  auto [it, first] = _stalled.try_emplace(role, text);
  if (!first && it->second == text) return;
  it->second = text;
  if (first) {
    SLUICE_LOG(warn, _id,
               role << ": a transient error outlasted errors.retry.max (" << text
                    << "): DEGRADED, retrying at errors.retry.backoff.max's pace");
  }
  publish_stalls();
}

void target_health::stall_ended(const std::string& role) {
  std::lock_guard lock(_mutex);
  if (_stalled.erase(role) == 0) return;
  SLUICE_LOG(info, _id, role << ": the stalled statement went through");
  publish_stalls();
}

void target_health::publish_stalls() {
  std::string why;
  for (const auto& [role, text] : _stalled)
    why += (why.empty() ? "" : "; ") + role + ": " + text;
  _state.degrade(
      _statements,
      why.empty() ? "" : _name + " statements retried past errors.retry.max (" + why + ")");
}

bool target_health::stalled() const {
  std::lock_guard lock(_mutex);
  return !_stalled.empty();
}

bool target_health::down() const {
  std::lock_guard lock(_mutex);
  return !_down.empty();
}

}  // namespace sluice
