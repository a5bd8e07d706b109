#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "connector/config/config.h"
#include "connector/control/member_agent.h"
#include "connector/control/supervisor.h"
#include "connector/drive/pipeline.h"
#include "connector/metrics/control_probe.h"
#include "connector/metrics/metrics_registry.h"
#include "sinks/target.h"

namespace sluice {

// One life of a member between two restarts: the configuration as read then, and everything
// made from it (supervisor.h). Shared by supervisor.cc and supervisor_offsets.cc only.
struct supervisor::incarnation {
  std::shared_ptr<const config> cfg;
  std::vector<std::pair<std::string, std::string>> connect_config;
  std::unique_ptr<metrics_registry> metrics;
  std::unique_ptr<control_probe> probe;
  std::shared_ptr<const sink::target> target;
  std::unique_ptr<member_agent> agent;
  std::unique_ptr<pipeline> pipe;  // none while STOPPED, or between two pipelines
};

}  // namespace sluice
