#pragma once

#include <atomic>
#include <mutex>
#include <string>

namespace sluice {

// The connector's lifecycle states, as in Datastream and Kafka Connect (SPEC §5).
enum class connector_state { starting, running, draining, paused, failed, stopped };

const char* to_string(connector_state s);

// The current state and, in FAILED, why. Written by the pipeline thread, read by anyone.
class state_holder {
 public:
  connector_state get() const { return _state.load(); }
  void set(connector_state s) { _state.store(s); }
  void fail(std::string reason);
  std::string reason() const;

 private:
  std::atomic<connector_state> _state{connector_state::starting};
  mutable std::mutex _mutex;
  std::string _reason;
};

}  // namespace sluice
