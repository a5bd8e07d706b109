#pragma once

#include <string>
#include <utility>
#include <vector>

#include "connector/config/config.h"

namespace sluice {

// The configuration as Kafka Connect's REST API shows a connector's: one flat string map
// (`kafka.bootstrap.servers`, `tables.<name>.key`), secrets redacted as describe() redacts
// them, with Connect's `name`, `connector.class` and `tasks.max` (apply.lanes) first.
std::vector<std::pair<std::string, std::string>> connect_config(const config& c);

}  // namespace sluice
