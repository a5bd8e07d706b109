#include "sinks/retry_policy.h"

#include <doctest/doctest.h>

#include <chrono>

// The one retry rule every target's session follows (pg_session, mdb_session).

using namespace sluice;
using namespace std::chrono_literals;

TEST_CASE("a connection failure is waited out forever, or until outage_limit has passed") {
  retry_policy forever = retry_policy::waiting_out();
  retry_state state;
  state.connection_failures = 50;
  state.outage_since = std::chrono::steady_clock::now() - 24h;
  const retry_step on = next_retry(forever, target_error_action::reconnect, state);
  REQUIRE(on.wait.has_value());
  CHECK(*on.wait <= forever.backoff_max);
  CHECK_FALSE(on.stalled);
  CHECK(next_retry(forever, target_error_action::in_doubt, state).wait.has_value());

  retry_policy bounded = retry_policy::bounded();
  retry_state fresh;
  fresh.connection_failures = 1;
  fresh.outage_since = std::chrono::steady_clock::now();
  CHECK(next_retry(bounded, target_error_action::reconnect, fresh).wait.has_value());
  fresh.outage_since -= bounded.outage_limit;
  CHECK_FALSE(next_retry(bounded, target_error_action::reconnect, fresh).wait.has_value());
}

TEST_CASE("statement failures: quiet attempts, then stalled (DEGRADED) or given up") {
  retry_policy connector = retry_policy::waiting_out();
  connector.statement_attempts = 3;
  retry_state state;
  CHECK_FALSE(next_retry(connector, target_error_action::retry, state).stalled);
  CHECK_FALSE(next_retry(connector, target_error_action::retry, state).stalled);
  const retry_step third = next_retry(connector, target_error_action::retry, state);
  CHECK(third.stalled);
  CHECK(third.wait.has_value());  // on at the backoff's pace
  CHECK(state.statement_failures == 3);

  retry_policy command = retry_policy::bounded();  // 3 attempts, then a person hears of it
  retry_state tried;
  CHECK(next_retry(command, target_error_action::retry, tried).wait.has_value());
  CHECK(next_retry(command, target_error_action::retry, tried).wait.has_value());
  CHECK_FALSE(next_retry(command, target_error_action::retry, tried).wait.has_value());
}

TEST_CASE("a rejected value, a refused login and anything else are never retried") {
  retry_state state;
  for (auto action :
       {target_error_action::reject, target_error_action::refused, target_error_action::fatal}) {
    CHECK_FALSE(next_retry(retry_policy::waiting_out(), action, state).wait.has_value());
  }
  CHECK(state.statement_failures == 0);
}
