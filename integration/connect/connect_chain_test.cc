// Issue 30, end to end against the real Debezium JDBC sink (the `connect` fixture): a
// connector config with a chain of five transforms from the peers' documentation
// (integration/connect/debezium-jdbc-sink-chain.json) goes through `sluice config import`
// untouched but for where its tables go; sluice runs that YAML on the connector's own topics,
// then the connector runs on them to the end. The two replicas must hold the same rows, column
// by column (sluice's own _sluice_* columns aside):
//
//   unwrap  io.debezium.transforms.ExtractNewRecordState, delete.tombstone.handling.mode=
//           rewrite, add.fields=table,lsn (the example of Debezium's event flattening page,
//           its delete.handling.mode=rewrite under 3.x's name): the row image with __deleted,
//           __table and __lsn; a delete is its `before` image with __deleted=true, tombstones
//           are dropped (Connect's MaskField refuses a null value: "Only Struct objects
//           supported for [mask fields], found: null", so the chain cannot let tombstones
//           through to it)
//   route   RegexRouter <p>.public.<t> -> <p>.replica.<t> (as debezium-jdbc-sink.json routes)
//   fields  ReplaceField$Value exclude=body, renames=c_text:description,note:remark
//   mask    MaskField$Value fields=c_varchar,c_integer under the predicate TopicNameMatches
//           .*\.all_types (the routed topic: the router runs before it)
//   insert  InsertField$Value static.field=MessageSource, static.value="Kafka Connect
//           framework" (the InsertField reference's example), topic.field=routed_topic
//
// Every message is on its topic twice (the fixtures produced a second time, in order: a
// redelivery of everything), which a last-writer-wins sink ends the same on and sluice must
// take as the duplicates they are.

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

// The imported YAML with its tables named sluice_<the connector's>: the one line that differs
// from what `sluice config import` wrote, so that both replicas live side by side.
// (The connector's URL says currentSchema=public, which the importer writes as the format's
// schema: jdbc_sink_scenario.cc.)
std::string beside_the_connector(std::string yaml) {
  const std::string from = "table.name.format: \"public.${topic}\"";
  const size_t at = yaml.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, yaml);
  yaml.replace(at, from.size(), "table.name.format: \"public.sluice_${topic}\"");
  return yaml;
}

// Where each replica's auto.create types differ (docs/column-types.md; not the transforms'
// doing): column -> "ours / theirs".
std::map<std::string, std::string> type_differences(const std::string& ours,
                                                    const std::string& theirs) {
  std::map<std::string, std::string> mine, out;
  for (const auto& [name, type] : stream_column_types(ours))
    mine[name] = type;
  for (const auto& [name, type] : stream_column_types(theirs)) {
    if (mine[name] != type) out[name] = mine[name] + " / " + type;
  }
  return out;
}

}  // namespace

TEST_CASE(
    "a Debezium JDBC sink's chain of five transforms, imported, runs in sluice and ends with the "
    "connector's rows") {
  const jdbc_sink_scenario s("debezium-jdbc-sink-chain.json");
  const std::map<std::string, int64_t> sizes = jdbc_sink_scenario::fixture_sizes();
  std::map<std::string, int64_t> twice;
  int64_t messages = 0;
  for (const auto& [table, count] : sizes) {
    s.produce(table, 0, static_cast<size_t>(count));
    s.produce(table, 0, static_cast<size_t>(count));
    twice[table] = 2 * count;
    messages += 2 * count;
  }

  const std::string yaml_path = run_dir() + "/" + s.name() + ".yaml";
  const command_result imported =
      run_sluice({"config", "import", s.config_file(), "-o", yaml_path});
  INFO("config import: " << imported.out << imported.err);
  REQUIRE(imported.exit_code == 0);  // every transform, option and predicate maps
  ::setenv("KAFKA_BOOTSTRAP_SERVERS", kafka_bootstrap().c_str(), 1);
  ::setenv("PGPASSWORD", "unused-trust-auth", 1);

  // sluice first: the connector's group has committed nothing yet, so sluice reads the topics
  // from their start (the takeover group it was given has no offset to start from).
  {
    sluice_process sluice(beside_the_connector(read_file(yaml_path)), "connect_chain");
    REQUIRE_MESSAGE(caught_up(s.name(), messages, std::chrono::seconds(60)), sluice.log());
    CHECK(sluice.stop() == 0);
  }
  // Then the connector, to the end of the same topics. Each topic ends with a tombstone, which
  // the unwrap drops (rewrite mode), and Connect commits a partition up to the last record its
  // task was given: one short of the end.
  s.start();
  std::map<std::string, int64_t> last_given;
  for (const auto& [table, count] : twice)
    last_given[table] = count - 1;
  if (!s.wait_committed(last_given, std::chrono::seconds(60))) {
    std::string committed;
    for (const auto& [table, offset] : s.committed())
      committed += table + "=" + std::to_string(offset) + " ";
    FAIL("the connector committed " << committed);
  }
  delete_connector(s.name());

  for (const std::string& table : jdbc_sink_scenario::tables()) {
    INFO(table);
    const std::string theirs = s.target_table(table);
    const std::string ours = "sluice_" + theirs;
    // The same columns, in the same order, whatever their types.
    std::vector<std::string> names, their_names;
    for (const auto& [name, type] : stream_column_types(ours))
      names.push_back(name);
    for (const auto& [name, type] : stream_column_types(theirs))
      their_names.push_back(name);
    REQUIRE(!their_names.empty());
    CHECK(names == their_names);
    const std::vector<std::string> apart = difference_in_types_of(ours, theirs);
    std::string shown;
    for (const std::string& line : apart)
      shown += line + "\n";
    CHECK_MESSAGE(apart.empty(), shown);
    // What the chain added to every row, in both.
    for (const std::string& t : {ours, theirs}) {
      CHECK(rows_of("SELECT DISTINCT messagesource, routed_topic, __table FROM " + t) ==
            std::vector<std::string>{"Kafka Connect framework|" + s.prefix() + ".replica." + table +
                                     "|" + table});
      CHECK(count_of("SELECT count(*) FROM " + t + " WHERE __lsn IS NULL") == 0);
    }
    CHECK(dead_letter_count(s.topic(table)) == 0);
  }
  // Debezium's sink: VariableScaleDecimal as double precision, json kept json, bit strings as
  // bit(n) (a varbit(16) as bit(16)), times and timestamps at precision 6; sluice: numeric,
  // jsonb, text, the source's precision (none for zoned ones). The values compare equal above,
  // sluice's numeric the more precise (3.14159265358979323846 against 3.141592653589793).
  CHECK(type_differences("sluice_" + s.target_table("all_types"), s.target_table("all_types")) ==
        std::map<std::string, std::string>{
            {"c_bit4", "text / bit(4)"},
            {"c_json", "jsonb / json"},
            {"c_jsonb", "jsonb / json"},
            {"c_numeric_u", "numeric / double precision"},
            {"c_time3", "time(3) without time zone / time(6) without time zone"},
            {"c_timetz", "time with time zone / time(6) with time zone"},
            {"c_ts3", "timestamp(3) without time zone / timestamp(6) without time zone"},
            {"c_tstz6", "timestamp with time zone / timestamp(6) with time zone"},
            {"c_varbit", "text / bit(16)"}});
  for (const std::string table : {"uuid_pk", "bytea_pk"})
    CHECK(type_differences("sluice_" + s.target_table(table), s.target_table(table)).empty());
  // The source's final rows through the chain (connect_takeover_test.cc's, renamed and masked;
  // the deleted ones kept, marked).
  for (const std::string& t :
       {s.target_table("all_types"), "sluice_" + s.target_table("all_types")}) {
    CHECK(rows_of("SELECT id, __deleted, translate(description, E'\n\t', '  '), c_varchar, "
                  "c_integer FROM " +
                  t + " ORDER BY id") ==
          std::vector<std::string>{"1|false|updated||0", R"(2|true|line1 line2 "quoted" \ back||0)",
                                   "3|false|<null>||<null>", "4|false|||0",
                                   "5|false|winter row||0"});
  }
  for (const std::string& t : {s.target_table("uuid_pk"), "sluice_" + s.target_table("uuid_pk")}) {
    CHECK(rows_of("SELECT id, __deleted, remark FROM " + t + " ORDER BY id") ==
          std::vector<std::string>{"00000000-0000-4000-8000-000000000001|false|third",
                                   "6ba7b810-9dad-11d1-80b4-00c04fd430c8|true|<null>",
                                   "f47ac10b-58cc-4372-a567-0e02b2c3d479|false|"
                                   "second, updated; body untouched (TOASTed)"});
    CHECK(count_of("SELECT count(*) FROM information_schema.columns WHERE table_name = '" + t +
                   "' AND column_name = 'body'") == 0);
  }
}

}  // namespace sluice::testing
