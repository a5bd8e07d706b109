#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "sinks/target_error.h"

namespace sluice {

// How a session's user wants failures retried (SPEC §4 "Errors", §5 DEGRADED). Two kinds:
//
//   connection-level   unreachable, connection lost, server restarting (08xxx, 57P01-57P03):
//                      retried until `outage_limit` has passed since the outage began,
//                      forever when it is 0 — an outage of any length is waited out;
//   statement-level    transient errors on a reachable server (40001, 40P01, 55P03 lock
//                      timeout, 57014 statement timeout, 25006, 53100 disk full, 53200 out
//                      of memory, 53300): `statement_attempts` attempts quietly; then, when
//                      `stall_after_attempts` (the connector's sessions), retried on forever
//                      at the backoff's pace with the observer told the session is stalled
//                      (DEGRADED), else given up (commands a person waits for).
//
// Waits between attempts grow exponentially from backoff_initial to backoff_max, half of each
// drawn at random (lanes that fail together do not retry in lockstep).
struct retry_policy {
  std::chrono::milliseconds outage_limit{0};  // 0: forever (postgres.retry.timeout)
  int statement_attempts = 10;                // errors.retry.max
  std::chrono::milliseconds backoff_initial{100};
  std::chrono::milliseconds backoff_max{30'000};  // errors.retry.backoff.max
  bool stall_after_attempts = true;  // past statement_attempts: wait on (true) or give up

  // The connector's long-running sessions: outages are waited out.
  static retry_policy waiting_out() { return {}; }
  // Commands a person waits for (check, status, replay): a few quick attempts, never a hang.
  static retry_policy bounded() {
    return {std::chrono::milliseconds(5'000), 3, std::chrono::milliseconds(200),
            std::chrono::milliseconds(2'000), false};
  }

  // The wait before the next attempt after `failures` consecutive failures (1, 2, …).
  std::chrono::milliseconds backoff(int failures) const;
};

// What a run of failures has used of a policy. One per operation (a batch, a claim).
struct retry_state {
  int connection_failures = 0;
  int statement_failures = 0;
  std::chrono::steady_clock::time_point outage_since{};  // first connection failure
};

// What a session does after a failure its target classified `action`, `state` counting the
// run so far (the one rule for every target's session): `wait` before the next attempt, or
// nothing to give up; `stalled` once the statement-level attempts are spent and the session
// waits on (the observer is told: DEGRADED). The caller has already counted a connection
// failure (report()); a statement failure is counted here.
struct retry_step {
  std::optional<std::chrono::milliseconds> wait;
  bool stalled = false;
};
retry_step next_retry(const retry_policy& policy, target_error_action action, retry_state& state);

}  // namespace sluice
