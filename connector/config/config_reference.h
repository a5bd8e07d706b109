#pragma once

#include <string>

namespace sluice {

// The configuration reference in Markdown, generated from the key table (config_table.cc):
// the file's rules (nesting, ${ENV}, durations, sizes), one table row per key (key, type,
// default, bounds, description) and the librdkafka properties sluice owns. `sluice
// config-reference` prints it; docs/configuration.md is its output.
std::string config_reference_markdown();

}  // namespace sluice
