#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace sluice {

// What `sluice check` found, one finding per line of its table (issue 15: "one table of
// findings"). A finding is ok, a warning (works, but a person should know: the state schema
// will be created or migrated on the first run), a failure (the run would fail: a missing
// topic or privilege), a configuration error (found locally: exit 2) or unreachable (a
// service did not answer: exit 3).
//
// Lifecycle: one per check. Threading: one thread.
class check_report {
 public:
  enum class status : uint8_t { ok, warn, fail, config_error, unreachable };

  struct finding {
    std::string area;     // kafka, postgres, state, privileges, topics
    std::string subject;  // what was checked
    status result;
    std::string detail;
  };

  void add(std::string area, std::string subject, status result, std::string detail = {});

  const std::vector<finding>& findings() const { return _findings; }
  bool has(status s) const;

  // The exit code: 2 for a configuration error, else 3 when a service did not answer, else 1
  // when a check failed, else 0 (warnings do not fail a check).
  int exit_code() const;

  // The table: one aligned line per finding. Every text must already be redacted.
  void print(std::ostream& out) const;

 private:
  std::vector<finding> _findings;
};

const char* to_string(check_report::status s);

}  // namespace sluice
