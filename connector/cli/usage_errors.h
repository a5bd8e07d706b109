#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sluice {

// A refused command line in sluice's voice, as the configuration loader speaks (what is wrong,
// with which word, and where to look) rather than CLI11's ("--config: At Most 1 required but
// received 2", "Could not convert: id = abc"). `command` is what was parsed of the command
// ("dead-letters show"; "" for none), `said` CLI11's message, `left` the words nothing took.
// CLI11 2.1's phrasings are matched; any other message passes through as it is.
std::string usage_error(std::string_view command, std::string_view said,
                        const std::vector<std::string>& left);

}  // namespace sluice
