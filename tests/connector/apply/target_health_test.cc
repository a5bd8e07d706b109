#include "connector/apply/target_health.h"

#include <doctest/doctest.h>

#include <string>

#include "connector/metrics/metrics_registry.h"
#include "connector/metrics/state_probe.h"
#include "sinks/target_error.h"
#include "sinks/target_factory.h"

namespace sluice {
namespace {

bool has_sample(const std::string& text, const std::string& series, const std::string& value) {
  return text.find("\n" + series + " " + value + "\n") != std::string::npos;
}

struct health_fixture {
  explicit health_fixture(target_kind target = target_kind::postgres)
      : registry(target), health(state, probe, errors, target) {}

  metrics_registry registry;
  state_probe states{registry};
  state_holder state{
      [this](connector_state s) { states.set(s); },
      [this](const std::string& dependency, bool on) { states.degraded(dependency, on); }};
  target_probe probe{registry};
  apply_probe errors{registry};
  target_health health;
  target_error_class lost{target_error_action::reconnect, "", "server closed the connection"};
};

target_error_class lock_wait(std::string sqlstate, std::string code) {
  target_error_class e;
  e.action = target_error_action::retry;
  e.sqlstate = std::move(sqlstate);
  e.message = "lock wait timeout";
  e.code = std::move(code);
  return e;
}

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

TEST_CASE("on PostgreSQL the outage and the stall are named as they always were") {
  health_fixture f;
  f.state.set(connector_state::running);
  f.health.unreachable("lane-0", f.lost);
  CHECK(f.state.degraded().first ==
        "PostgreSQL unreachable (lane-0): server closed the connection");
  f.health.stalled("partition-owner", lock_wait("55P03", ""));
  CHECK(f.state.degraded().first ==
        "PostgreSQL unreachable (lane-0): server closed the connection; PostgreSQL statements "
        "retried past errors.retry.max (partition-owner: 55P03 lock wait timeout)");
  const std::string m = f.registry.serialize();
  CHECK(has_sample(m, "sluice_degraded{dependency=\"postgres\"}", "1"));
  CHECK(has_sample(m, "sluice_degraded{dependency=\"postgres statements\"}", "1"));
  CHECK(has_sample(m, "sluice_target_up{target=\"postgres\"}", "0"));
  CHECK(has_sample(m, "sluice_postgres_up", "0"));
}

TEST_CASE("on MariaDB the outage and the stall name MariaDB, and a stall its error number") {
  health_fixture f(target_kind::mariadb);
  f.state.set(connector_state::running);
  f.health.error(f.lost);
  f.health.unreachable("lane-0", f.lost);
  CHECK(f.state.get() == connector_state::degraded);
  CHECK(f.state.degraded().first == "MariaDB unreachable (lane-0): server closed the connection");
  f.health.stalled("partition-owner", lock_wait("HY000", "1205"));
  CHECK(f.state.degraded().first ==
        "MariaDB unreachable (lane-0): server closed the connection; MariaDB statements retried "
        "past errors.retry.max (partition-owner: 1205 lock wait timeout)");
  std::string m = f.registry.serialize();
  INFO(m);
  CHECK(has_sample(m, "sluice_degraded{dependency=\"mariadb\"}", "1"));
  CHECK(has_sample(m, "sluice_degraded{dependency=\"mariadb statements\"}", "1"));
  CHECK(m.find("dependency=\"postgres") == std::string::npos);
  CHECK(has_sample(m, "sluice_target_up{target=\"mariadb\"}", "0"));
  CHECK(has_sample(
      m, "sluice_target_errors_total{action=\"reconnect\",code=\"unknown\",target=\"mariadb\"}",
      "1"));
  CHECK(m.find("sluice_postgres_") == std::string::npos);

  f.health.stall_ended("partition-owner");
  f.health.reconnected("lane-0");
  f.health.reachable("lane-0");
  CHECK(f.state.get() == connector_state::running);
  m = f.registry.serialize();
  CHECK(has_sample(m, "sluice_degraded{dependency=\"mariadb\"}", "0"));
  CHECK(has_sample(m, "sluice_degraded{dependency=\"mariadb statements\"}", "0"));
  CHECK(has_sample(m, "sluice_target_up{target=\"mariadb\"}", "1"));
  CHECK(has_sample(m, "sluice_target_reconnects_total{target=\"mariadb\"}", "1"));
}

}  // namespace
}  // namespace sluice
