#include "connector/cli/cli_options.h"

#include <algorithm>
#include <iostream>

#include "connector/config/config_loader.h"
#include "connector/runtime/log.h"

namespace sluice {

std::optional<std::string> flag_value(const arguments& args, std::string_view short_name,
                                      std::string_view long_name) {
  for (size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == short_name || args[i] == long_name) && i + 1 < args.size()) {
      return std::string(args[i + 1]);
    }
    const std::string prefix = std::string(long_name) + "=";
    if (args[i].starts_with(prefix)) return std::string(args[i].substr(prefix.size()));
  }
  return std::nullopt;
}

bool has_flag(const arguments& args, std::string_view name) {
  return std::find(args.begin(), args.end(), name) != args.end();
}

std::optional<std::string> unknown_argument(const arguments& args,
                                            std::initializer_list<std::string_view> with_value,
                                            std::initializer_list<std::string_view> switches) {
  auto is_one_of = [](std::string_view a, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), a) != names.end();
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (is_one_of(a, switches)) continue;
    if (is_one_of(a, with_value)) {
      if (i + 1 == args.size()) return std::string(a) + " (needs a value)";
      ++i;
      continue;
    }
    const size_t eq = a.find('=');
    if (a.starts_with("--") && eq != std::string_view::npos &&
        is_one_of(a.substr(0, eq), with_value)) {
      continue;
    }
    return std::string(a);
  }
  return std::nullopt;
}

std::optional<config> load_command_config(const arguments& args, std::string_view command) {
  auto path = flag_value(args, "-c", "--config");
  if (!path) {
    std::cerr << "sluice " << command << ": missing -c|--config FILE\n";
    return std::nullopt;
  }
  load_result r = load_config_file(*path);
  if (!r.ok()) {
    std::cerr << "sluice: invalid configuration (" << r.errors().size() << " error"
              << (r.errors().size() == 1 ? "" : "s") << "):\n"
              << r.error_text();
    return std::nullopt;
  }
  config c = std::move(r.value());
  const log_severity severity = c.log.level == log_level::debug   ? log_severity::debug
                                : c.log.level == log_level::warn  ? log_severity::warn
                                : c.log.level == log_level::error ? log_severity::error
                                                                  : log_severity::info;
  log::configure(severity, c.log.format == log_format::json);
  log::hide(c.secrets);
  return c;
}

}  // namespace sluice
