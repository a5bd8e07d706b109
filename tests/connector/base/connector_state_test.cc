#include "connector/base/connector_state.h"

#include <doctest/doctest.h>

#include <vector>

using namespace sluice;

TEST_CASE("FAILED is final: no later state hides it, and the first reason is kept") {
  std::vector<connector_state> published;
  state_holder state([&](connector_state s) { published.push_back(s); });
  CHECK(state.get() == connector_state::starting);
  CHECK(state.set(connector_state::running));
  CHECK(state.set(connector_state::paused));
  CHECK(state.set(connector_state::running));
  CHECK(published ==
        std::vector{connector_state::running, connector_state::paused, connector_state::running});

  state.fail("cannot decode cdc[0]@5");
  // A pause, a resume or a drain that raced the failure is refused.
  for (connector_state later : {connector_state::paused, connector_state::running,
                                connector_state::draining, connector_state::stopped}) {
    CAPTURE(to_string(later));
    CHECK_FALSE(state.set(later));
    CHECK(state.get() == connector_state::failed);
  }
  state.fail("a later failure");
  CHECK(state.reason() == "cannot decode cdc[0]@5");
  // The gauge saw FAILED once and nothing after it.
  CHECK(published.size() == 4);
  CHECK(published.back() == connector_state::failed);
}

TEST_CASE(
    "DEGRADED overlays RUNNING while a dependency is away, and RUNNING comes back by itself") {
  std::vector<connector_state> published;
  state_holder state([&](connector_state s) { published.push_back(s); });
  state.degrade("postgres", "PostgreSQL unreachable (lane-0): connection refused");
  CHECK(state.get() == connector_state::degraded);  // waiting at start-up
  CHECK(state.set(connector_state::running));
  CHECK(state.get() == connector_state::degraded);
  CHECK(state.degraded().first == "PostgreSQL unreachable (lane-0): connection refused");
  CHECK(state.degraded().second > 0);
  state.degrade("postgres", "");
  CHECK(state.get() == connector_state::running);
  CHECK(state.degraded().first.empty());
  CHECK(published == std::vector{connector_state::degraded, connector_state::running});

  // PAUSED and DRAINING show as they are; RUNNING again shows the outage still going on.
  state.degrade("kafka", "broker down");
  CHECK(state.set(connector_state::paused));
  CHECK(state.get() == connector_state::paused);
  CHECK(state.set(connector_state::running));
  CHECK(state.get() == connector_state::degraded);
  // FAILED stays FAILED, outage or not.
  // Two dependencies away: DEGRADED until both are back, saying both.
  state.degrade("postgres", "lost");
  CHECK(state.degraded().first == "broker down; lost");
  state.degrade("kafka", "");
  CHECK(state.get() == connector_state::degraded);
  CHECK(state.degraded().first == "lost");
  state.degrade("postgres", "");
  CHECK(state.get() == connector_state::running);
  state.fail("refused");
  CHECK(state.get() == connector_state::failed);
  state.degrade("kafka", "again");
  CHECK(state.get() == connector_state::failed);
}
