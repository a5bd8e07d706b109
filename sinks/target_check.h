#pragma once

#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace sluice::sink {

// `sluice check` on the target's side, target-neutral: what to look at, and what was found.
// The target's probe (PostgreSQL's: postgres/pg_check.h) opens one connection with a short
// connect timeout and no retries and never writes.
enum class check_status : uint8_t { ok, warn, fail, config_error, unreachable };

struct check_finding {
  std::string area;
  std::string subject;
  check_status status = check_status::ok;
  std::string detail;
  // The detail is an error's text (it may quote a secret): the caller redacts it.
  bool error_text = false;
};

struct check_request {
  std::string shown_target;  // how findings name the target (its DSN, already redacted)
  std::chrono::milliseconds timeout{5'000};  // caps the connect timeout
  // The target schemas the configuration names without a placeholder; dynamic_schemas: some
  // are named by the messages.
  std::set<std::string> target_schemas;
  bool dynamic_schemas = false;
  bool auto_create = true;
};

}  // namespace sluice::sink
