#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>

namespace sluice {

// The connector's lifecycle states, as in Datastream and Kafka Connect (SPEC §5).
enum class connector_state { starting, running, draining, paused, failed, stopped };

const char* to_string(connector_state s);

// The current state and, in FAILED, why. Changed by the pipeline thread, failed by any stage,
// read by anyone. FAILED is final: a pause, a resume or a drain that races a lane's failure
// must not hide it. Every change is handed to `on_change` (the state gauge) under the same
// lock, so that the gauge never disagrees with get() once both settle.
class state_holder {
 public:
  explicit state_holder(std::function<void(connector_state)> on_change = {});

  connector_state get() const { return _state.load(); }
  // Moves to s; false, changing nothing, once FAILED.
  bool set(connector_state s);
  // Enters FAILED; the first reason is kept (what failed first is the cause).
  void fail(std::string reason);
  std::string reason() const;

 private:
  std::function<void(connector_state)> _on_change;
  std::atomic<connector_state> _state{connector_state::starting};
  mutable std::mutex _mutex;
  std::string _reason;
};

}  // namespace sluice
