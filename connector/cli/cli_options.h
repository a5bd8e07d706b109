#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "connector/config/config.h"

namespace sluice {

// Loads the configuration at `path` and configures logging from it; prints every error (to
// stderr) and returns nothing when it is invalid.
std::optional<config> load_command_config(const std::string& path, std::string_view command);

}  // namespace sluice
