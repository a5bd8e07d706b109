#include "connector/cli/exit_codes.h"

#include <array>
#include <utility>

namespace sluice {
namespace {

constexpr std::string_view usage =
    "usage or configuration error (found without contacting anything)";
constexpr std::string_view unreachable = "a service could not be reached";

struct codes {
  std::string_view command;
  std::array<std::string_view, 4> meaning;  // exit 0..3; empty: never
};

// What each command means by each code (connector/cli/*_command.cc return them).
constexpr std::array<codes, 14> table = {{
    {"run", {"drained and stopped (SIGTERM)", "the connector failed", usage, ""}},
    {"check",
     {"no failure (warnings allowed)", "a check failed (a missing topic, a missing privilege)",
      usage, unreachable}},
    {"decode",
     {"every message decoded", "some message was refused (each on stderr with its reason)", usage,
      ""}},
    {"replay",
     {"every file applied", "stopped before the end of its input (errors.tolerance: none)", usage,
      "the target database could not be reached"}},
    {"status", {"every service answered", "", usage, unreachable}},
    {"offsets show", {"shown", "", usage, unreachable}},
    {"offsets reset",
     {"moved (or, with --dry-run, planned)", "refused: the consumer group has live members", usage,
      unreachable}},
    {"dead-letters list", {"listed", "", usage, "the target database could not be reached"}},
    {"dead-letters show",
     {"shown", "no such letter", usage, "the target database could not be reached"}},
    {"dead-letters replay",
     {"every letter taken applied",
      "stopped, or letters failed again (they stay, with their new reason)", usage,
      "the target database could not be reached"}},
    {"dead-letters purge",
     {"purged, or nothing matched", "letters match but --yes was not given", usage,
      "the target database could not be reached"}},
    {"config-reference", {"printed", "", usage, ""}},
    {"config import",
     {"every key mapped", "some keys not mapped (listed on stderr; the YAML is still written)",
      "the file unreadable, or not a Debezium or Confluent JDBC sink's config", ""}},
    {"",
     {"ok (check: no failure, warnings allowed)",
      "the connector failed, a check failed, offsets reset was refused (live members), replay "
      "stopped before the end of its input, dead-letters show found no such letter, "
      "dead-letters replay left letters failing again, dead-letters purge found letters but "
      "was not given --yes, decode refused a message",
      usage, "a service could not be reached (check, status, offsets, dead-letters, replay)"}},
}};

}  // namespace

std::string exit_codes_for(std::string_view command) {
  for (const codes& c : table) {
    if (c.command != command) continue;
    std::string out = "Exit codes:\n";
    for (size_t code = 0; code < c.meaning.size(); ++code) {
      if (c.meaning[code].empty()) continue;
      out += "  " + std::to_string(code) + "  " + std::string(c.meaning[code]) + "\n";
    }
    return out;
  }
  // A command group (offsets, dead-letters): only usage errors of its own.
  return "Exit codes:\n  2  " + std::string(usage) + "\n";
}

}  // namespace sluice
