#pragma once

#include <string_view>
#include <vector>

namespace sluice {

using arguments = std::vector<std::string_view>;

const char* version();

// Each returns the process exit code (see cli/main.cc).
int run_command(const arguments& args);
int check_command(const arguments& args);
int decode_command(const arguments& args);  // cli/decode_command.cc
int replay_command(const arguments& args);  // cli/replay_command.cc
int status_command(const arguments& args);  // cli/status_command.cc
int config_reference_command(const arguments& args);

}  // namespace sluice
