#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

// Reads an environment variable; nullopt when it is not set. Injected so that tests (and
// `sluice check` on another machine's file) need not touch the process environment.
using env_lookup = std::function<std::optional<std::string>(std::string_view name)>;

// getenv().
env_lookup process_environment();

// The names the table router fills in: ${topic}, ${database}, ${schema}, ${table}. They are
// reserved: never read from the environment.
bool is_routing_placeholder(std::string_view name);

struct substitution {
  std::string text;
  std::vector<std::string> errors;  // one per bad reference; text is unusable if any
};

// Substitutes environment references in one scalar value of the configuration file:
//   ${NAME}            the variable's value; an error if it is not set
//   ${NAME:-fallback}  the variable's value, or fallback when it is unset or empty
//   $${                a literal "${"
// NAME is [A-Za-z_][A-Za-z0-9_]*. A routing placeholder is kept as written where
// `routing_allowed` (table.name.format, tables.<source>.target) and is an error elsewhere.
// Substituted text is not scanned again.
substitution substitute_env(std::string_view text, const env_lookup& env, bool routing_allowed);

}  // namespace sluice
