#pragma once

namespace sluice {

// sluice's command line on CLI11: parses argv strictly (unknown flags, stray arguments and
// missing values are refused with exit 2; --help on every command exits 0), then runs the
// command and returns the process exit code.
int run_command_line(int argc, char** argv);

}  // namespace sluice
