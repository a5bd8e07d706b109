#pragma once

#include <string>
#include <string_view>

namespace sluice {

// The exit codes a command can end with, as its --help lists them ("Exit codes:" and one line
// each): `command` is its path after "sluice", e.g. "dead-letters purge"; "" gives every
// code (the top-level help; docs/operations.md has the same table). Every command may exit 2
// (usage or configuration error, found without contacting anything).
std::string exit_codes_for(std::string_view command);

}  // namespace sluice
