#pragma once

#include <string_view>
#include <vector>

namespace sluice {

using arguments = std::vector<std::string_view>;

const char* version();

// Each returns the process exit code (see cli/main.cc).
int run_command(const arguments& args);
int check_command(const arguments& args);
int decode_command(const arguments& args);
int config_reference_command(const arguments& args);

}  // namespace sluice
