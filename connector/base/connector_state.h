#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace sluice {

// The connector's lifecycle states, as in Datastream and Kafka Connect (SPEC §5). DEGRADED:
// RUNNING, but a dependency is unreachable and is being waited out.
enum class connector_state { starting, running, degraded, draining, paused, failed, stopped };

const char* to_string(connector_state s);

// The current state and, in FAILED, why. Changed by the pipeline thread, failed by any stage,
// read by anyone. FAILED is final: a pause, a resume or a drain that races a lane's failure
// must not hide it. DEGRADED overlays RUNNING (and STARTING): while degrade() holds a reason,
// such a connector reads DEGRADED, and RUNNING again once it is cleared (other states show as they
// are). Every change of what get() says is handed to `on_change` (the state gauge) under the
// same lock, so that the gauge never disagrees with get() once both settle.
class state_holder {
 public:
  // on_degraded(dependency, on): a dependency began (true) or ceased (false) to hold DEGRADED,
  // called under the same lock (the sluice_degraded gauge).
  explicit state_holder(std::function<void(connector_state)> on_change = {},
                        std::function<void(const std::string&, bool)> on_degraded = {});

  connector_state get() const { return _state.load(); }
  // Moves to s (starting, running, draining, paused, stopped); false, changing nothing, once
  // FAILED.
  bool set(connector_state s);
  // A dependency ("postgres", "kafka") became unreachable (reason) or reachable again (empty
  // reason). DEGRADED while any is unreachable.
  void degrade(const std::string& dependency, std::string reason);
  // While degraded: why (every unreachable dependency's reason, "; "-separated), and since
  // when (the earliest; system clock, ms since the epoch); empty reason when not.
  std::pair<std::string, int64_t> degraded() const;
  // Enters FAILED; the first reason is kept (what failed first is the cause).
  void fail(std::string reason);
  std::string reason() const;

 private:
  void publish();  // under _mutex

  std::function<void(connector_state)> _on_change;
  std::function<void(const std::string&, bool)> _on_degraded;
  std::atomic<connector_state> _state{connector_state::starting};  // what get() says
  mutable std::mutex _mutex;
  connector_state _base = connector_state::starting;  // without the DEGRADED overlay
  std::string _reason;
  std::map<std::string, std::pair<std::string, int64_t>> _degraded;  // dependency → why, since
};

}  // namespace sluice
