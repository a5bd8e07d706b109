#include "connector/cli/cli_options.h"

#include <iostream>
#include <stdexcept>

#include "connector/base/log.h"
#include "connector/config/config_loader.h"
#include "connector/prepare/change_rules.h"

namespace sluice {

std::optional<config> load_command_config(const std::string& path, std::string_view command) {
  load_result r = load_config_file(path);
  if (!r.ok()) {
    std::cerr << "sluice " << command << ": invalid configuration (" << r.errors().size()
              << " error" << (r.errors().size() == 1 ? "" : "s") << "):\n"
              << r.error_text();
    return std::nullopt;
  }
  config c = std::move(r.value());
  // The rules built once, as every command builds them: what the loader cannot see (a Cast
  // spec, a date pattern, an InsertField naming one column twice) is refused here too, before
  // any service is touched.
  try {
    change_rules rules(c);
  } catch (const std::invalid_argument& e) {
    std::cerr << "sluice " << command << ": invalid configuration (1 error):\n"
              << path << ": " << e.what() << "\n";
    return std::nullopt;
  }
  const log_severity severity = c.log.level == log_level::debug   ? log_severity::debug
                                : c.log.level == log_level::warn  ? log_severity::warn
                                : c.log.level == log_level::error ? log_severity::error
                                                                  : log_severity::info;
  log::configure(severity, c.log.format == log_format::json);
  log::hide(c.secrets);
  return c;
}

}  // namespace sluice
