#include "sinks/retry_policy.h"

#include <algorithm>
#include <random>

namespace sluice {

std::chrono::milliseconds retry_policy::backoff(int failures) const {
  const int64_t initial = std::max<int64_t>(1, backoff_initial.count());
  const int64_t cap = std::max<int64_t>(initial, backoff_max.count());
  int64_t delay = initial;
  for (int i = 1; i < failures && delay < cap; ++i)
    delay *= 2;
  delay = std::min(delay, cap);
  thread_local std::minstd_rand rng{std::random_device{}()};
  delay = delay / 2 + static_cast<int64_t>(rng() % static_cast<uint64_t>(delay / 2 + 1));
  return std::chrono::milliseconds(delay);
}

retry_step next_retry(const retry_policy& policy, target_error_action action, retry_state& state) {
  retry_step step;
  switch (action) {
    case target_error_action::reconnect:
    case target_error_action::in_doubt:
      if (policy.outage_limit.count() > 0 &&
          std::chrono::steady_clock::now() - state.outage_since >= policy.outage_limit) {
        return step;
      }
      step.wait = policy.backoff(state.connection_failures);
      break;
    case target_error_action::retry:
      if (++state.statement_failures >= policy.statement_attempts) {
        if (!policy.stall_after_attempts) return step;
        // Past the quiet attempts: on at the backoff's pace, the connector DEGRADED while it
        // lasts (a lock held by someone else, a full disk: a person may have to act, and
        // nothing is lost meanwhile).
        step.stalled = true;
      }
      step.wait = policy.backoff(state.statement_failures);
      break;
    case target_error_action::reject:
    case target_error_action::refused:
    case target_error_action::fatal:
      break;
  }
  return step;
}

}  // namespace sluice
