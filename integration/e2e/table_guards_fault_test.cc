// Hostile routing and failed DDL against a live sluice (issue 12): a source schema named like
// sluice's state schema, one named pg_catalog, two sources folding onto one target, a table
// left out by tables.exclude, and a target whose auto-create PostgreSQL refuses (a view holds
// its name). sluice stays RUNNING, writes nothing outside the replicated tables, dead-letters
// each with its kind, names the failing table in /status and /metrics, and applies it once
// the view is gone.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "integration/support/datastream_events.h"
#include "integration/support/metrics_text.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/connector/http/http_test_client.h"

namespace sluice::testing {
TEST_CASE("hostile routing and a refused DDL are dead letters; everything else goes on") {
  const std::string topic = unique_name("cdc_guards");
  const std::string connector = unique_name("guards");
  const std::string s = unique_name("guarded");
  create_topic(topic, 1);
  execute("CREATE SCHEMA \"" + s + "\"");
  execute("CREATE VIEW \"" + s + "\".blocked AS SELECT 1 AS id");

  std::vector<kafka_record> records = {
      // Routed to sluice.offsets by ${schema}.${table}: it would add a column there.
      datastream_record("sluice", "offsets", 1, 101,
                        ",\"connector\":\"" + connector +
                            "\",\"topic\":\"x\",\"partition\":0,"
                            "\"next_offset\":0,\"evil\":1"),
      datastream_record("pg_catalog", "pg_class", 1, 102, ",\"relname\":\"x\""),
      datastream_record(s, "blocked", 1, 103, ",\"v\":1"),
      datastream_record(s, "blocked", 2, 104, ",\"v\":2"),
      datastream_record(s, "fine", 1, 105, ",\"v\":1"),
      datastream_record(s, "skipped", 1, 106, ",\"v\":1"),
      datastream_record(s, "Orders", 1, 107, ",\"v\":1"),
      datastream_record(s, "ORDERS", 2, 108, ",\"v\":2"),
  };
  produce(topic, records);
  const uint16_t port = free_port();
  sluice_process p(with_metrics_listen(
      basic_config(connector, topic, "datastream", "tables:\n  exclude: ['.*\\.skipped']\n", 100),
      port));

  std::string metrics;
  REQUIRE_MESSAGE(wait_until(
                      [&] {
                        try {
                          metrics = http_request(port, "GET", "/metrics").body;
                        } catch (const std::exception&) {
                          return false;
                        }
                        return metric_sample(metrics,
                                             "sluice_consumer_lag_messages{partition=\"0\"") == 0 &&
                               count_of("SELECT count(*) FROM \"" + s + "\".fine") == 1;
                      },
                      std::chrono::seconds(90)),
                  p.log());
  CHECK(metric_sample(metrics, "sluice_state{state=\"RUNNING\"}") == 1);

  // Nothing reached sluice's own state or PostgreSQL's catalog.
  CHECK(count_of("SELECT count(*) FROM information_schema.columns WHERE table_schema = 'sluice' "
                 "AND table_name = 'offsets' AND column_name IN ('id', 'evil')") == 0);
  CHECK(count_of("SELECT count(*) FROM sluice.offsets WHERE connector = '" + connector +
                 "' AND topic = 'x'") == 0);
  const std::string letters =
      "SELECT count(*) FROM sluice.dead_letters WHERE connector = '" + connector + "' AND ";
  CHECK(count_of(letters + "kind = 'routing' AND reason LIKE '%state schema%'") == 1);
  CHECK(count_of(letters + "kind = 'routing' AND reason LIKE '%PostgreSQL''s catalogs%'") == 1);
  // Orders and ORDERS: one claimed the target, the other is refused.
  CHECK(count_of("SELECT count(*) FROM \"" + s + "\".orders") == 1);
  CHECK(count_of(letters + "kind = 'routing' AND reason LIKE '%folds onto this target%'") == 1);
  // The view's table: both rows dead-lettered with the reason, the table named.
  CHECK(count_of(letters + "kind = 'ddl_failed' AND target_schema = '" + s +
                 "' AND target_table = 'blocked'") == 2);
  // Left out, not dead-lettered: counted as filtered.
  CHECK(count_of("SELECT count(*) FROM pg_tables WHERE schemaname = '" + s +
                 "' AND tablename = 'skipped'") == 0);
  CHECK(metric_sample(metrics,
                      "sluice_messages_total{outcome=\"filtered\",topic=\"" + topic + "\"}") == 1);
  CHECK(metric_sample(metrics, "sluice_table_ddl_failed{table=\"" + s + ".blocked\"}") == 1);
  CHECK(metric_sample(metrics, "sluice_ddl_failures_total{table=\"" + s + ".blocked\"}") >= 1);
  const std::string status = http_request(port, "GET", "/status").body;
  CHECK_MESSAGE(
      status.find("\"failed_tables\":[{\"table\":\"" + s + ".blocked\"") != std::string::npos,
      status);

  // The cause fixed, the table's next rows are applied and it leaves the list.
  execute("DROP VIEW \"" + s + "\".blocked");
  produce(topic, {datastream_record(s, "blocked", 3, 200, ",\"v\":3")});
  REQUIRE_MESSAGE(wait_until(
                      [&] {
                        try {
                          return count_of("SELECT count(*) FROM \"" + s + "\".blocked") == 1 &&
                                 http_request(port, "GET", "/status").body.find("failed_tables") ==
                                     std::string::npos;
                        } catch (const std::exception&) {
                          return false;
                        }
                      },
                      std::chrono::seconds(60)),
                  p.log());
  metrics = http_request(port, "GET", "/metrics").body;
  CHECK(metric_sample(metrics, "sluice_table_ddl_failed{table=\"" + s + ".blocked\"}") == 0);
  CHECK(p.running());
  CHECK(p.stop() == 0);
}

}  // namespace sluice::testing
