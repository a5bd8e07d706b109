#include "connector/cli/commands.h"

#include <chrono>
#include <iostream>
#include <string>

#include "connector/check/kafka_check.h"
#include "connector/check/registry_check.h"
#include "connector/check/target_check.h"
#include "connector/cli/cli_options.h"
#include "connector/config/config.h"

// `sluice check`: the configuration as loaded, then each service probed once.
namespace sluice {

int check_command(const std::string& config_path) {
  auto c = load_command_config(config_path, "check");
  if (!c) return 2;
  std::cout << "# effective configuration\n" << describe(*c) << "\n";
  // A person waits for check: each service gets a few seconds, once, and nothing is created,
  // migrated or retried (issue 15).
  constexpr std::chrono::milliseconds timeout{5000};
  check_report report;
  check_kafka(*c, report, timeout);
  check_target(*c, report, timeout);
  check_registry(*c, report, timeout);
  report.print(std::cout);
  const int code = report.exit_code();
  std::cout << "\n" << (code == 0 ? "check passed" : "check failed") << " (exit " << code << ")\n";
  return code;
}

}  // namespace sluice
