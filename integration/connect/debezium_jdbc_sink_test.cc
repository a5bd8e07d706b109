// The real Debezium JDBC sink (Kafka Connect 4.1 with debezium-connector-jdbc 3.6.0.Final from
// Maven Central: the `connect` fixture, services/connect.sh) on the committed Debezium
// JsonConverter fixtures, configured as integration/connect/debezium-jdbc-sink.json: default
// naming, upsert on the record key, deletes, basic schema evolution, a field.exclude.list and
// a RegexRouter. What it builds is what a Connect user switching to sluice (issue 28) has: its
// tables, named as the routed topic with dots as `_`, without the excluded column; and its
// consumer group's offsets, which stay where it stopped. apply_part() stops it part-way through
// the topics, where sluice's takeover starts.

#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "integration/connect/connect_rest.h"
#include "integration/connect/consumer_groups.h"
#include "integration/connect/jdbc_sink_scenario.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"

namespace sluice::testing {
namespace {

// Each row of a query as its cells joined by '|', NULL as <null>.
std::vector<std::string> rows_of(const std::string& sql) {
  std::vector<std::string> out;
  for (const row& r : query(sql)) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i)
      line += (i ? "|" : "") + str(r[i]);
    out.push_back(line);
  }
  return out;
}

// The columns of public.table, in order, joined by ' '.
std::string columns_of(const std::string& table) {
  std::string out;
  for (const row& r : query("SELECT column_name FROM information_schema.columns WHERE "
                            "table_schema = 'public' AND table_name = '" +
                            table + "' ORDER BY ordinal_position"))
    out += (out.empty() ? "" : " ") + str(r[0]);
  return out;
}

// The tables whose name starts with prefix, in any schema, as schema.table.
std::vector<std::string> tables_named(const std::string& prefix) {
  std::vector<std::string> out;
  for (const row& r : query("SELECT schemaname || '.' || tablename FROM pg_tables WHERE "
                            "starts_with(tablename, '" +
                            prefix + "') ORDER BY 1"))
    out.push_back(str(r[0]));
  return out;
}

std::map<std::string, int64_t> high_watermarks(const jdbc_sink_scenario& s) {
  std::map<std::string, int64_t> out;
  for (const std::string& table : jdbc_sink_scenario::tables())
    out[table] = high_watermark(s.topic(table), 0);
  return out;
}

}  // namespace

TEST_CASE(
    "Debezium's JDBC sink applies a Debezium topic into routed tables without the "
    "excluded field, and its group keeps its offsets once it is stopped") {
  const jdbc_sink_scenario s;
  const std::map<std::string, int64_t> sizes = jdbc_sink_scenario::fixture_sizes();
  REQUIRE(sizes ==
          std::map<std::string, int64_t>{{"all_types", 9}, {"bytea_pk", 9}, {"uuid_pk", 6}});
  for (const auto& [table, size] : sizes)
    s.produce(table, 0, static_cast<size_t>(size));
  s.start();
  REQUIRE_MESSAGE(s.wait_committed(sizes),
                  "committed all_types=" << s.committed().at("all_types")
                                         << " uuid_pk=" << s.committed().at("uuid_pk")
                                         << " bytea_pk=" << s.committed().at("bytea_pk"));

  // Default naming after the RegexRouter: <prefix>.replica.<table> with its dots as `_`, in
  // public; nothing under the topic's own name.
  CHECK(tables_named(s.prefix()) ==
        std::vector<std::string>{"public." + s.target_table("all_types"),
                                 "public." + s.target_table("bytea_pk"),
                                 "public." + s.target_table("uuid_pk")});
  // field.exclude.list <routed topic>:body: the column is never created.
  CHECK(columns_of(s.target_table("uuid_pk")) == "id note");
  CHECK(columns_of(s.target_table("bytea_pk")) == "id note");
  CHECK(count_of("SELECT count(*) FROM information_schema.columns WHERE table_name = '" +
                 s.target_table("all_types") + "'") == 30);

  // Upserts, updates and deletes applied: the source's final rows.
  CHECK(rows_of("SELECT id, c_text, c_varchar FROM " + s.target_table("all_types") +
                " ORDER BY id") == std::vector<std::string>{"1|updated|hello", "3|<null>|was null",
                                                            "4||" + std::string(80, 'x'),
                                                            "5|winter row|winter"});
  CHECK(rows_of("SELECT id, note FROM " + s.target_table("uuid_pk") + " ORDER BY id") ==
        std::vector<std::string>{
            "00000000-0000-4000-8000-000000000001|third",
            "f47ac10b-58cc-4372-a567-0e02b2c3d479|second, updated; body untouched (TOASTed)"});
  CHECK(rows_of("SELECT encode(id, 'hex'), note FROM " + s.target_table("bytea_pk") +
                " ORDER BY 1") ==
        std::vector<std::string>{"0001ff|three bytes", "00ff|a zero byte"});

  // Stopped: the group is empty and its offsets stay at the topics' ends, also as KIP-875's
  // GET /offsets tells them.
  stop_connector(s.name());
  CHECK(group_members(s.group()) == 0);
  std::this_thread::sleep_for(std::chrono::seconds(3));  // three offset.flush.interval.ms
  CHECK(s.committed() == sizes);
  const rest_answer offsets = connect_rest("GET", "/connectors/" + s.name() + "/offsets");
  CHECK(offsets.status == 200);
  for (const auto& [table, size] : sizes) {
    INFO(offsets.body);
    CHECK(offsets.body.find("\"kafka_topic\":\"" + s.topic(table) + "\"") != std::string::npos);
    CHECK(offsets.body.find("\"kafka_offset\":" + std::to_string(size)) != std::string::npos);
  }
  // Deleting the connector leaves its group's offsets too.
  delete_connector(s.name());
  CHECK(connector_states(s.name()).empty());
  CHECK(s.committed() == sizes);
}

TEST_CASE(
    "apply_part: the connector applies the first part of each topic and is stopped "
    "there, the rest of the topics unread") {
  const jdbc_sink_scenario s;
  // Snapshot and creates applied; the updates, deletes and tombstones left for a takeover.
  const std::map<std::string, int64_t> part{{"all_types", 5}, {"bytea_pk", 3}, {"uuid_pk", 3}};
  s.apply_part(part);

  CHECK(connector_states(s.name()) == std::vector<std::string>{"STOPPED"});
  CHECK(group_members(s.group()) == 0);
  CHECK(s.committed() == part);
  CHECK(high_watermarks(s) == jdbc_sink_scenario::fixture_sizes());

  const auto replica = [&] {
    return std::vector<std::vector<std::string>>{
        rows_of("SELECT id, c_text FROM " + s.target_table("all_types") + " ORDER BY id"),
        rows_of("SELECT note FROM " + s.target_table("uuid_pk") + " ORDER BY note"),
        rows_of("SELECT encode(id, 'hex'), note FROM " + s.target_table("bytea_pk") +
                " ORDER BY 1")};
  };
  const std::vector<std::vector<std::string>> applied = replica();
  CHECK(applied[0] == std::vector<std::string>{"1|plain text", "2|line1\nline2\t\"quoted\" \\ back",
                                               "3|<null>", "4|", "5|winter row"});
  CHECK(applied[1] == std::vector<std::string>{"first", "second", "third"});
  CHECK(applied[2] ==
        std::vector<std::string>{"00|a zero byte", "0001ff|three bytes", "deadbeef|dead beef"});
  CHECK(columns_of(s.target_table("uuid_pk")) == "id note");

  // Stopped means stopped: the rest of the topics stays unapplied and uncommitted.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  CHECK(replica() == applied);
  CHECK(s.committed() == part);
  delete_connector(s.name());
}

}  // namespace sluice::testing
