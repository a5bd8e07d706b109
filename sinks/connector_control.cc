#include "sinks/connector_control.h"

namespace sluice::sink {

const char* to_string(target_state s) {
  switch (s) {
    case target_state::running:
      return "RUNNING";
    case target_state::paused:
      return "PAUSED";
    case target_state::stopped:
      return "STOPPED";
  }
  return "RUNNING";
}

std::optional<target_state> parse_target_state(std::string_view s) {
  if (s == "RUNNING") return target_state::running;
  if (s == "PAUSED") return target_state::paused;
  if (s == "STOPPED") return target_state::stopped;
  return std::nullopt;
}

}  // namespace sluice::sink
