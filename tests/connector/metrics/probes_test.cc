#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include "connector/metrics/apply_probe.h"
#include "connector/metrics/chunk_probe.h"
#include "connector/metrics/consumer_probe.h"
#include "connector/metrics/decode_probe.h"
#include "connector/metrics/merge_probe.h"
#include "connector/metrics/metrics_registry.h"
#include "connector/metrics/state_probe.h"
#include "connector/metrics/target_probe.h"
#include "sinks/target_error.h"
#include "sinks/target_factory.h"

using sluice::apply_probe;
using sluice::chunk_probe;
using sluice::connector_state;
using sluice::consumer_probe;
using sluice::decode_probe;
using sluice::merge_probe;
using sluice::metrics_registry;
using sluice::partition_id;
using sluice::state_probe;
using sluice::target_error_action;
using sluice::target_error_class;
using sluice::target_kind;
using sluice::target_probe;

namespace {

bool has(const std::string& text, const std::string& line) {
  return text.find(line) != std::string::npos;
}

// A series line: name{labels} value, matched up to and including the value.
bool has_sample(const std::string& text, const std::string& series, const std::string& value) {
  return has(text, "\n" + series + " " + value + "\n");
}

target_error_class failure(target_error_action action, std::string sqlstate,
                           std::string code = "") {
  target_error_class e;
  e.action = action;
  e.sqlstate = std::move(sqlstate);
  e.message = "a failure";
  e.code = std::move(code);
  return e;
}

}  // namespace

TEST_CASE("every SPEC §6 family is exposed with its type and label names once probes ran") {
  metrics_registry registry;
  consumer_probe consumer(registry);
  decode_probe decode(registry);
  merge_probe merge(registry);
  apply_probe apply(registry);
  state_probe state(registry);
  chunk_probe chunks(registry);

  consumer.rebalance();
  consumer.lag("cdc.orders", partition_id{3}, 8);
  decode.decoded("cdc.orders", 10);
  decode.dead_lettered("cdc.orders", 2);
  merge.collapsed("root.sample", 4);
  merge.csn_conflicts("root.sample", 1);
  apply.applied("root.sample", 5);
  apply.deleted("root.sample", 2);
  apply.stale("root.sample", 1);
  apply.batch(6, 0.02);
  apply.target_error(failure(target_error_action::retry, "40001"));
  apply.end_to_end(0.3);
  apply.replication_lag("root.sample", 1.5);
  state.set(connector_state::running);
  chunks.pending(7);

  const std::string m = registry.serialize();
  INFO(m);
  CHECK(has(m, "# TYPE sluice_consumer_lag_messages gauge\n"));
  CHECK(has_sample(m, "sluice_consumer_lag_messages{partition=\"3\",topic=\"cdc.orders\"}", "8"));
  CHECK(has(m, "# TYPE sluice_replication_lag_seconds gauge\n"));
  CHECK(has_sample(m, "sluice_replication_lag_seconds{table=\"root.sample\"}", "1.5"));
  CHECK(has(m, "# TYPE sluice_end_to_end_latency_seconds histogram\n"));
  CHECK(has_sample(m, "sluice_end_to_end_latency_seconds_count", "1"));
  CHECK(has_sample(m, "sluice_end_to_end_latency_seconds_bucket{le=\"0.5\"}", "1"));
  CHECK(has_sample(m, "sluice_end_to_end_latency_seconds_bucket{le=\"0.25\"}", "0"));
  CHECK(has(m, "# TYPE sluice_messages_total counter\n"));
  CHECK(has_sample(m, "sluice_messages_total{outcome=\"decoded\",topic=\"cdc.orders\"}", "10"));
  CHECK(
      has_sample(m, "sluice_messages_total{outcome=\"dead_lettered\",topic=\"cdc.orders\"}", "2"));
  CHECK(has(m, "# TYPE sluice_changes_total counter\n"));
  for (const auto& [outcome, value] :
       {std::pair{"applied", "5"}, std::pair{"collapsed", "4"}, std::pair{"stale", "1"},
        std::pair{"deleted", "2"}, std::pair{"csn_conflict", "1"}}) {
    CHECK(has_sample(
        m, std::string("sluice_changes_total{outcome=\"") + outcome + "\",table=\"root.sample\"}",
        value));
  }
  CHECK(has(m, "# TYPE sluice_batch_rows histogram\n"));
  CHECK(has_sample(m, "sluice_batch_rows_sum", "6"));
  CHECK(has(m, "# TYPE sluice_batch_apply_seconds histogram\n"));
  CHECK(has_sample(m, "sluice_batch_apply_seconds_count", "1"));
  CHECK(has(m, "# TYPE sluice_postgres_errors_total counter\n"));
  CHECK(has_sample(m, "sluice_postgres_errors_total{sqlstate=\"40001\"}", "1"));
  CHECK(has(m, "# TYPE sluice_target_errors_total counter\n"));
  CHECK(has_sample(
      m, "sluice_target_errors_total{action=\"retry\",code=\"40001\",target=\"postgres\"}", "1"));
  CHECK(has(m, "# TYPE sluice_rebalances_total counter\n"));
  CHECK(has_sample(m, "sluice_rebalances_total", "1"));
  CHECK(has(m, "# TYPE sluice_pending_chunks gauge\n"));
  CHECK(has_sample(m, "sluice_pending_chunks", "7"));
  CHECK(has(m, "# TYPE sluice_state gauge\n"));
  CHECK(has_sample(m, "sluice_state{state=\"RUNNING\"}", "1"));
  for (const char* other : {"STARTING", "DEGRADED", "DRAINING", "PAUSED", "FAILED", "STOPPED"}) {
    CHECK(has_sample(m, std::string("sluice_state{state=\"") + other + "\"}", "0"));
  }
}

TEST_CASE("before any batch the unlabelled series are already scraped and the state is STARTING") {
  metrics_registry registry;
  const std::string m = registry.serialize();
  CHECK(has_sample(m, "sluice_rebalances_total", "0"));
  CHECK(has_sample(m, "sluice_pending_chunks", "0"));
  CHECK(has_sample(m, "sluice_batch_rows_count", "0"));
  CHECK(has_sample(m, "sluice_batch_apply_seconds_count", "0"));
  CHECK(has_sample(m, "sluice_end_to_end_latency_seconds_count", "0"));
  CHECK(has_sample(m, "sluice_state{state=\"STARTING\"}", "1"));
  CHECK(has_sample(m, "sluice_state{state=\"RUNNING\"}", "0"));
}

TEST_CASE("a topic's or table's first count creates every outcome of its probe at 0") {
  metrics_registry registry;
  decode_probe(registry).decoded("cdc.orders", 1);
  merge_probe(registry).collapsed("t", 1);
  const std::string m = registry.serialize();
  CHECK(
      has_sample(m, "sluice_messages_total{outcome=\"dead_lettered\",topic=\"cdc.orders\"}", "0"));
  CHECK(has_sample(m, "sluice_changes_total{outcome=\"csn_conflict\",table=\"t\"}", "0"));
}

TEST_CASE("probes of several lanes on one registry add to the same series") {
  metrics_registry registry;
  apply_probe lane0(registry);
  apply_probe lane1(registry);
  lane0.applied("t", 2);
  lane1.applied("t", 3);
  lane0.target_error(failure(target_error_action::retry, "40P01"));
  lane1.target_error(failure(target_error_action::retry, "40P01"));
  const std::string m = registry.serialize();
  CHECK(has_sample(m, "sluice_changes_total{outcome=\"applied\",table=\"t\"}", "5"));
  CHECK(has_sample(m, "sluice_postgres_errors_total{sqlstate=\"40P01\"}", "2"));
  CHECK(has_sample(
      m, "sluice_target_errors_total{action=\"retry\",code=\"40P01\",target=\"postgres\"}", "2"));
}

TEST_CASE("an error without SQLSTATE is counted as unknown") {
  metrics_registry registry;
  apply_probe(registry).target_error(failure(target_error_action::reconnect, ""));
  const std::string m = registry.serialize();
  CHECK(has_sample(m, "sluice_postgres_errors_total{sqlstate=\"unknown\"}", "1"));
  CHECK(has_sample(
      m, "sluice_target_errors_total{action=\"reconnect\",code=\"unknown\",target=\"postgres\"}",
      "1"));
}

TEST_CASE("on PostgreSQL the target's series come under both their neutral and their first names") {
  metrics_registry registry(target_kind::postgres);
  apply_probe apply(registry);
  target_probe target(registry);
  std::string m = registry.serialize();
  INFO(m);
  CHECK(has_sample(m, "sluice_target_up{target=\"postgres\"}", "1"));
  CHECK(has_sample(m, "sluice_postgres_up", "1"));
  CHECK(has_sample(m, "sluice_target_reconnects_total{target=\"postgres\"}", "0"));
  CHECK(has_sample(m, "sluice_postgres_reconnects_total", "0"));

  target.up(false);
  target.reconnected();
  // One SQLSTATE, two verdicts: one series of the old family, two of the new one.
  apply.target_error(failure(target_error_action::retry, "40001"));
  apply.target_error(failure(target_error_action::in_doubt, "40001"));
  apply.target_error(failure(target_error_action::reject, "22P02"));
  m = registry.serialize();
  CHECK(has_sample(m, "sluice_target_up{target=\"postgres\"}", "0"));
  CHECK(has_sample(m, "sluice_postgres_up", "0"));
  CHECK(has_sample(m, "sluice_target_reconnects_total{target=\"postgres\"}", "1"));
  CHECK(has_sample(m, "sluice_postgres_reconnects_total", "1"));
  CHECK(has_sample(m, "sluice_postgres_errors_total{sqlstate=\"40001\"}", "2"));
  CHECK(has_sample(m, "sluice_postgres_errors_total{sqlstate=\"22P02\"}", "1"));
  CHECK(has_sample(
      m, "sluice_target_errors_total{action=\"retry\",code=\"40001\",target=\"postgres\"}", "1"));
  CHECK(has_sample(
      m, "sluice_target_errors_total{action=\"in_doubt\",code=\"40001\",target=\"postgres\"}",
      "1"));
  CHECK(has_sample(
      m, "sluice_target_errors_total{action=\"reject\",code=\"22P02\",target=\"postgres\"}", "1"));
  CHECK(has(m, "Kafka message timestamp to PostgreSQL commit."));
}

TEST_CASE(
    "on MariaDB only the neutral series exist, labelled mariadb and counted by error number") {
  metrics_registry registry(target_kind::mariadb);
  apply_probe apply(registry);
  target_probe target(registry);
  target.up(false);
  target.reconnected();
  // MariaDB's deadlock: error 1213, SQLSTATE 40001. The number is the code.
  apply.target_error(failure(target_error_action::retry, "40001", "1213"));
  apply.target_error(failure(target_error_action::reconnect, "", "2013"));
  apply.target_error(failure(target_error_action::fatal, "", ""));
  const std::string m = registry.serialize();
  INFO(m);
  CHECK(has_sample(m, "sluice_target_up{target=\"mariadb\"}", "0"));
  CHECK(has_sample(m, "sluice_target_reconnects_total{target=\"mariadb\"}", "1"));
  CHECK(has_sample(
      m, "sluice_target_errors_total{action=\"retry\",code=\"1213\",target=\"mariadb\"}", "1"));
  CHECK(has_sample(
      m, "sluice_target_errors_total{action=\"reconnect\",code=\"2013\",target=\"mariadb\"}", "1"));
  CHECK(has_sample(
      m, "sluice_target_errors_total{action=\"fatal\",code=\"unknown\",target=\"mariadb\"}", "1"));
  CHECK_FALSE(has(m, "sluice_postgres_"));
  CHECK_FALSE(has(m, "target=\"postgres\""));
  CHECK_FALSE(has(m, "PostgreSQL"));
  CHECK(has(m, "Kafka message timestamp to MariaDB commit."));
}

TEST_CASE("a revoked partition's lag disappears and a negative lag shows as 0") {
  metrics_registry registry;
  consumer_probe consumer(registry);
  consumer.lag("a", partition_id{0}, 5);
  consumer.lag("a", partition_id{1}, -1001);
  consumer.lag("b", partition_id{0}, 9);
  std::string m = registry.serialize();
  CHECK(has_sample(m, "sluice_consumer_lag_messages{partition=\"1\",topic=\"a\"}", "0"));
  consumer.revoked("a", partition_id{0});
  consumer.revoked("a", partition_id{7});  // never seen: nothing happens
  consumer.revoked("c", partition_id{0});
  m = registry.serialize();
  CHECK_FALSE(has(m, "sluice_consumer_lag_messages{partition=\"0\",topic=\"a\"}"));
  CHECK(has_sample(m, "sluice_consumer_lag_messages{partition=\"0\",topic=\"b\"}", "9"));
  consumer.lag("a", partition_id{0}, 2);  // assigned again
  CHECK(has_sample(registry.serialize(),
                   "sluice_consumer_lag_messages{partition=\"0\",topic=\"a\"}", "2"));
}

TEST_CASE("replication lag goes to 0 for every table once nothing is pending") {
  metrics_registry registry;
  apply_probe apply(registry);
  apply.replication_lag("t1", 12);
  apply.replication_lag("t2", 3.5);
  apply.caught_up();
  const std::string m = registry.serialize();
  CHECK(has_sample(m, "sluice_replication_lag_seconds{table=\"t1\"}", "0"));
  CHECK(has_sample(m, "sluice_replication_lag_seconds{table=\"t2\"}", "0"));
}

TEST_CASE("the state gauge follows set(), by state or by name") {
  metrics_registry registry;
  state_probe state(registry);
  state.set(connector_state::failed);
  std::string m = registry.serialize();
  CHECK(has_sample(m, "sluice_state{state=\"FAILED\"}", "1"));
  CHECK(has_sample(m, "sluice_state{state=\"STARTING\"}", "0"));
  CHECK(state.set("PAUSED"));
  m = registry.serialize();
  CHECK(has_sample(m, "sluice_state{state=\"PAUSED\"}", "1"));
  CHECK(has_sample(m, "sluice_state{state=\"FAILED\"}", "0"));
  CHECK_FALSE(state.set("SLEEPING"));
  m = registry.serialize();
  for (const char* s :
       {"STARTING", "RUNNING", "DEGRADED", "DRAINING", "PAUSED", "FAILED", "STOPPED"})
    CHECK(has_sample(m, std::string("sluice_state{state=\"") + s + "\"}", "0"));
}

TEST_CASE("one probe shared by lane threads counts every call while being scraped") {
  metrics_registry registry;
  apply_probe apply(registry);
  std::vector<std::thread> lanes;
  for (int lane = 0; lane < 4; ++lane) {
    lanes.emplace_back([&apply, lane] {
      for (int i = 0; i < 1000; ++i) {
        apply.applied("t" + std::to_string(i % 8), 1);
        apply.batch(1, 0.001);
        if (lane == 0) apply.caught_up();
      }
    });
  }
  for (int i = 0; i < 20; ++i)
    CHECK(has(registry.serialize(), "# TYPE sluice_batch_rows histogram"));
  for (std::thread& t : lanes)
    t.join();
  const std::string m = registry.serialize();
  CHECK(has_sample(m, "sluice_batch_rows_count", "4000"));
  for (int t = 0; t < 8; ++t) {
    CHECK(has_sample(
        m, "sluice_changes_total{outcome=\"applied\",table=\"t" + std::to_string(t) + "\"}",
        "500"));
  }
}

TEST_CASE("a committed batch adds one end-to-end latency sample per message with a timestamp") {
  metrics_registry registry;
  apply_probe apply(registry);
  const int64_t now = 1'700'000'000'000'000'000;
  const std::vector<int64_t> timestamps = {
      now - 3'000'000,          // 3 ms     → le 0.005
      now - 40'000'000,         // 40 ms    → le 0.05
      now - 40'000'000,         // 40 ms    → le 0.05
      now - 7'200'000'000'000,  // 2 h  → +Inf
      0,                        // no Kafka timestamp: not a sample
      now + 5'000'000,          // clock skew: counted as 0 s
  };
  apply.end_to_end(timestamps, now);

  const std::string m = registry.serialize();
  INFO(m);
  CHECK(has_sample(m, "sluice_end_to_end_latency_seconds_count", "5"));
  CHECK(has_sample(m, "sluice_end_to_end_latency_seconds_bucket{le=\"0.005\"}", "2"));
  CHECK(has_sample(m, "sluice_end_to_end_latency_seconds_bucket{le=\"0.025\"}", "2"));
  CHECK(has_sample(m, "sluice_end_to_end_latency_seconds_bucket{le=\"0.05\"}", "4"));
  CHECK(has_sample(m, "sluice_end_to_end_latency_seconds_bucket{le=\"3600\"}", "4"));
  CHECK(has_sample(m, "sluice_end_to_end_latency_seconds_bucket{le=\"+Inf\"}", "5"));
}
