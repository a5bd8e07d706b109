#pragma once

#include <cstdint>
#include <string>

namespace sluice {

// What a sink's user does about a failed call to the target (SPEC §4 "Errors"). Each target
// decides it in one file of its own (PostgreSQL: postgres/session/pg_error_policy.h); the
// connector only reads the verdict (health, metrics, FAILED's reason).
enum class target_error_action : uint8_t {
  retry,      // transient (serialization failure, deadlock, read-only standby): run it again
  reconnect,  // the connection is gone or going: open a new one, then run it again
  in_doubt,   // the connection broke during COMMIT: read the offsets back to learn the outcome
  reject,     // the target refused a value or a constraint: isolate the change, dead-letter it
  refused,    // the server was reached and refused the login, or its TLS certificate was not
              // accepted: only a person can fix that; stop, saying why
  fatal,      // anything else: a bug, a permission, a missing object; stop
};

const char* to_string(target_error_action action);

struct target_error_class {
  target_error_action action = target_error_action::fatal;
  std::string sqlstate;  // the SQL standard's five-character code; empty when the error had none
  std::string message;   // the error text, first line, without the server's "ERROR:" prefix
  std::string code{};    // the target's own code where it is not the SQLSTATE (MariaDB's error
                         // number, "1213"); empty: the SQLSTATE is the code (PostgreSQL)
};

}  // namespace sluice
