// Issue 28's switch, end to end against the real Debezium JDBC sink (the `connect` fixture):
// the connector applies the first part of its Debezium topics and is stopped there; its own
// config, as POSTed to Connect (integration/connect/debezium-jdbc-sink.json: a RegexRouter,
// a field.exclude.list, default naming), goes through `sluice config import` untouched; sluice
// runs that YAML and takes over from the connector's consumer group into the connector's own
// tables. The replica must come out as if the connector had applied everything itself (a
// second connector, run to the end, is the reference), without reading what the connector
// committed again and without a column the connector left out.

#include <doctest/doctest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "integration/connect/connect_rest.h"
#include "integration/connect/jdbc_sink_scenario.h"
#include "integration/connect/replica_diff.h"
#include "integration/support/fixture_files.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

int64_t total(const std::map<std::string, int64_t>& offsets) {
  int64_t n = 0;
  for (const auto& [table, offset] : offsets)
    n += offset;
  return n;
}

// The final rows of the committed fixtures (the source's), as debezium_jdbc_sink_test.cc finds
// them in the connector's tables: the columns that changed and the deleted rows.
void check_source_rows(const std::string& all_types, const std::string& uuid_pk,
                       const std::string& bytea_pk) {
  CHECK(rows_of("SELECT id, c_text, c_varchar FROM " + all_types + " ORDER BY id") ==
        std::vector<std::string>{"1|updated|hello", "3|<null>|was null",
                                 "4||" + std::string(80, 'x'), "5|winter row|winter"});
  CHECK(rows_of("SELECT id, note FROM " + uuid_pk + " ORDER BY id") ==
        std::vector<std::string>{
            "00000000-0000-4000-8000-000000000001|third",
            "f47ac10b-58cc-4372-a567-0e02b2c3d479|second, updated; body untouched (TOASTed)"});
  CHECK(rows_of("SELECT encode(id, 'hex'), note FROM " + bytea_pk + " ORDER BY 1") ==
        std::vector<std::string>{"0001ff|three bytes", "00ff|a zero byte"});
}

}  // namespace

TEST_CASE(
    "a Debezium JDBC sink's config imported as it is: sluice waits while the connector runs, "
    "then takes over from its offsets into its tables and ends where the connector would have") {
  const std::map<std::string, int64_t> sizes = jdbc_sink_scenario::fixture_sizes();
  // The reference: a connector of its own applies every message of its own topics.
  const jdbc_sink_scenario reference;
  reference.apply_part(sizes);
  delete_connector(reference.name());

  // The switch: the connector applies the snapshot and inserts; updates, deletes and
  // tombstones are left to sluice.
  const jdbc_sink_scenario s;
  const std::map<std::string, int64_t> part{{"all_types", 5}, {"bytea_pk", 3}, {"uuid_pk", 3}};
  for (const auto& [table, count] : part)
    s.produce(table, 0, static_cast<size_t>(count));
  s.start();
  REQUIRE(s.wait_committed(part));

  const std::string yaml_path = run_dir() + "/" + s.name() + ".yaml";
  const command_result imported =
      run_sluice({"config", "import", s.config_file(), "-o", yaml_path});
  INFO("config import: " << imported.out << imported.err);
  CHECK(imported.exit_code == 0);  // every key of this connector maps
  CHECK(contains(imported.err, "PGPASSWORD"));
  CHECK(contains(imported.err, "KAFKA_BOOTSTRAP_SERVERS"));
  // What the importer said to set; the YAML runs as it was written.
  ::setenv("KAFKA_BOOTSTRAP_SERVERS", kafka_bootstrap().c_str(), 1);
  ::setenv("PGPASSWORD", "unused-trust-auth", 1);
  const command_result checked = run_sluice({"check", "-c", yaml_path});
  CHECK_MESSAGE(checked.exit_code == 0, checked.out << checked.err);

  // Started while the connector still runs: sluice takes nothing over, reads nothing.
  sluice_process sluice(read_file(yaml_path), "connect_takeover");
  REQUIRE_MESSAGE(wait_until([&] { return contains(sluice.log(), "live member(s)"); },
                             std::chrono::seconds(30)),
                  sluice.log());
  CHECK(contains(sluice.log(), "group " + s.group() + " has 1 live member(s)"));
  CHECK(committed_messages(s.name()) == 0);
  // Not even its own columns added yet: the connector's tables are untouched.
  CHECK(count_of("SELECT count(*) FROM information_schema.columns WHERE table_name = '" +
                 s.target_table("all_types") + "' AND starts_with(column_name, '_sluice')") == 0);

  // The switch: the connector stopped, the rest of the topics produced.
  stop_connector(s.name());
  for (const auto& [table, count] : part)
    s.produce(table, static_cast<size_t>(count), static_cast<size_t>(sizes.at(table)));
  // sluice's own group commits every message of the topics, having read each one from the
  // connector's committed offset: the connector's remaining lag, nothing it applied.
  REQUIRE_MESSAGE(caught_up(s.name(), total(sizes), std::chrono::seconds(90)), sluice.log());
  for (const auto& [table, offset] : part) {
    CHECK_MESSAGE(
        contains(sluice.log(), s.topic(table) + "[0] starts at " + std::to_string(offset) +
                                   ", group " + s.group() + "'s committed offset"),
        sluice.log());
  }
  CHECK(sluice.stop() == 0);

  for (const std::string& table : jdbc_sink_scenario::tables()) {
    INFO(table);
    const std::string ours = s.target_table(table);
    const std::string theirs = reference.target_table(table);
    // The connector's tables, adopted: the same stream columns as the reference, sluice's
    // own added beside them, nothing created elsewhere.
    CHECK(stream_columns(ours) == stream_columns(theirs));
    CHECK(count_of("SELECT count(*) FROM pg_tables WHERE starts_with(tablename, '" + s.prefix() +
                   "')") == 3);
    const std::vector<std::string> apart = difference(stream_columns(theirs), ours, theirs);
    std::string shown;
    for (const std::string& line : apart)
      shown += line + "\n";
    CHECK_MESSAGE(apart.empty(), shown);
    // The connector's rows updated by sluice carry its CSN.
    CHECK(count_of("SELECT count(*) FROM public." + ours + " WHERE _sluice_csn IS NOT NULL") > 0);
  }
  check_source_rows(s.target_table("all_types"), s.target_table("uuid_pk"),
                    s.target_table("bytea_pk"));
  // field.exclude.list <routed topic>:body: never created by either.
  CHECK(count_of("SELECT count(*) FROM information_schema.columns WHERE table_name = '" +
                 s.target_table("uuid_pk") + "' AND column_name = 'body'") == 0);
  for (const std::string& table : jdbc_sink_scenario::tables())
    CHECK(dead_letter_count(s.topic(table)) == 0);
}

TEST_CASE("a Confluent JDBC sink's config imports and runs on the same Debezium topics") {
  // Confluent's documented shape: ExtractNewRecordState in front (which sluice does not need),
  // pk.mode=record_key, upserts, deletes, auto.create, table.name.format, a RegexRouter.
  const jdbc_sink_scenario s;  // its topics only: no Connect connector runs here
  const std::map<std::string, int64_t> sizes = jdbc_sink_scenario::fixture_sizes();
  for (const auto& [table, count] : sizes)
    s.produce(table, 0, static_cast<size_t>(count));
  const std::string dsn = postgres_dsn();  // postgresql://USER@HOST:PORT/DB?...
  const size_t at = dsn.find('@'), slash = dsn.find('/', at), query_at = dsn.find('?');
  const std::string url = "jdbc:postgresql://" + dsn.substr(at + 1, slash - at - 1) + "/" +
                          dsn.substr(slash + 1, query_at - slash - 1);
  const std::string user = dsn.substr(13, at - 13);
  const std::string name = unique_name("cf_sink");
  std::string config = R"js({"name": "@NAME@", "config": {
    "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
    "tasks.max": "1",
    "topics.regex": "@PREFIX@\\.public\\..*",
    "connection.url": "@URL@",
    "connection.user": "@USER@",
    "connection.password": "${env:CF_PASSWORD}",
    "insert.mode": "upsert",
    "pk.mode": "record_key",
    "delete.enabled": "true",
    "auto.create": "true",
    "auto.evolve": "true",
    "table.name.format": "public.${topic}",
    "transforms": "unwrap,route",
    "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
    "transforms.unwrap.drop.tombstones": "false",
    "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.route.regex": "([^.]+)\\.public\\.(.+)",
    "transforms.route.replacement": "$1_cf_$2",
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "true"
  }})js";
  for (const auto& [from, to] : std::map<std::string, std::string>{
           {"@NAME@", name}, {"@PREFIX@", s.prefix()}, {"@URL@", url}, {"@USER@", user}})
    config.replace(config.find(from), from.size(), to);
  const std::string yaml_path = run_dir() + "/" + name + ".yaml";
  const command_result imported =
      run_sluice({"config", "import", write_run_file(name + ".json", config), "-o", yaml_path});
  INFO("config import: " << imported.out << imported.err);
  CHECK(imported.exit_code == 0);
  CHECK(contains(imported.err, "CF_PASSWORD"));  // ${env:CF_PASSWORD} kept as a variable
  ::setenv("KAFKA_BOOTSTRAP_SERVERS", kafka_bootstrap().c_str(), 1);
  ::setenv("CF_PASSWORD", "unused-trust-auth", 1);

  sluice_process sluice(read_file(yaml_path), "confluent_import");
  REQUIRE_MESSAGE(caught_up(name, total(sizes), std::chrono::seconds(90)), sluice.log());
  CHECK(sluice.stop() == 0);
  // table.name.format public.${topic}: schema public, the routed topic as it is, case kept.
  const auto target = [&](const std::string& table) {
    return "public.\"" + s.prefix() + "_cf_" + table + "\"";
  };
  check_source_rows(target("all_types"), target("uuid_pk"), target("bytea_pk"));
  for (const std::string& table : jdbc_sink_scenario::tables())
    CHECK(dead_letter_count(s.topic(table)) == 0);
}

}  // namespace sluice::testing
