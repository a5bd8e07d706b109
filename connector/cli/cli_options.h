#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "connector/cli/commands.h"
#include "connector/config/config.h"

namespace sluice {

// Command-line helpers shared by the commands (cli/commands.cc, decode_command.cc,
// replay_command.cc).

// The value following a flag: -c FILE, --config FILE, --config=FILE.
std::optional<std::string> flag_value(const arguments& args, std::string_view short_name,
                                      std::string_view long_name);
bool has_flag(const arguments& args, std::string_view name);

// The first argument that is neither one of the flags (those in with_value take the next
// argument, or --flag=value) nor a flag's value; nothing when every argument is known.
std::optional<std::string> unknown_argument(const arguments& args,
                                            std::initializer_list<std::string_view> with_value,
                                            std::initializer_list<std::string_view> switches);

// Loads the configuration named by -c|--config and configures logging from it; prints every
// error (to stderr) and returns nothing when it is missing or invalid.
std::optional<config> load_command_config(const arguments& args, std::string_view command);

}  // namespace sluice
