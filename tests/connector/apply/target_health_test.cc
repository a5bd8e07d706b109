#include "connector/apply/target_health.h"

#include <doctest/doctest.h>

#include <string>

#include "connector/metrics/metrics_registry.h"
#include "connector/metrics/state_probe.h"
#include "sinks/target_error.h"

namespace sluice {
namespace {

bool has_sample(const std::string& text, const std::string& series, const std::string& value) {
  return text.find("\n" + series + " " + value + "\n") != std::string::npos;
}

struct health_fixture {
  metrics_registry registry;
  state_probe states{registry};
  state_holder state{[this](connector_state s) { states.set(s); }};
  target_probe probe{registry};
  apply_probe errors{registry};
  target_health health{state, probe, errors};
  target_error_class lost{target_error_action::reconnect, "", "server closed the connection"};
};

TEST_CASE("one session losing PostgreSQL degrades the connector until every such session is back") {
  health_fixture f;
  f.state.set(connector_state::running);
  CHECK(has_sample(f.registry.serialize(), "sluice_postgres_up", "1"));

  f.health.error(f.lost);
  f.health.unreachable("lane-0", f.lost);
  f.health.unreachable("partition-owner", f.lost);
  CHECK(f.health.down());
  CHECK(f.state.get() == connector_state::degraded);
  CHECK(f.state.degraded().first.find("server closed the connection") != std::string::npos);
  std::string m = f.registry.serialize();
  CHECK(has_sample(m, "sluice_postgres_up", "0"));
  CHECK(has_sample(m, "sluice_state{state=\"DEGRADED\"}", "1"));
  CHECK(has_sample(m, "sluice_state{state=\"RUNNING\"}", "0"));
  CHECK(has_sample(m, "sluice_postgres_errors_total{sqlstate=\"unknown\"}", "1"));

  f.health.reconnected("lane-0");
  f.health.reachable("lane-0");
  CHECK(f.state.get() == connector_state::degraded);  // the owner still waits
  f.health.withdrawn("partition-owner");              // …or gave up waiting
  CHECK(!f.health.down());
  CHECK(f.state.get() == connector_state::running);
  m = f.registry.serialize();
  CHECK(has_sample(m, "sluice_postgres_up", "1"));
  CHECK(has_sample(m, "sluice_postgres_reconnects_total", "1"));
  CHECK(has_sample(m, "sluice_state{state=\"RUNNING\"}", "1"));
  CHECK(has_sample(m, "sluice_state{state=\"DEGRADED\"}", "0"));
}

TEST_CASE("a session that was never down coming back changes nothing") {
  health_fixture f;
  f.state.set(connector_state::running);
  f.health.reachable("lane-1");
  f.health.withdrawn("lane-1");
  CHECK(f.state.get() == connector_state::running);
  CHECK(!f.health.down());
}

}  // namespace
}  // namespace sluice
