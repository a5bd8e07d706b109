// One prepare stage (issue 26): the same messages through a real topic with `sluice run` and,
// as the kcat -J lines that topic would print, through `sluice replay` give identical rows and
// identical dead letters (kinds, reasons, origins and bytes), for every format. Each side has
// its own connector (its own catalog and dead letters) and writes into a schema of its own
// (table.name.format); both read the same messages at the same offsets with the same CreateTime.
// The inputs hold what each per-message rule acts on: duplicates, late older changes, deletes,
// a table filter, an absurd timestamp, a message that does not decode, chunked records.

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/base64.h"
#include "integration/support/datastream_events.h"
#include "integration/support/fixture_files.h"
#include "integration/support/kcat_lines.h"
#include "integration/support/registry_admin.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/schemas/dsql_records.h"

namespace sluice::testing {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A CreateTime ten days ahead of the clock: refused by the timestamp rule on both sides.
int64_t absurd_ms() {
  return now_ms() + int64_t{10} * 24 * 3600 * 1000;
}

// What one side left in PostgreSQL: per table of its schema, the column types and the rows
// (sluice's own _sluice_* columns aside), as text.
std::map<std::string, std::string> replica_of(const std::string& schema) {
  std::map<std::string, std::string> out;
  for (const row& t : query("SELECT table_name FROM information_schema.tables WHERE "
                            "table_schema = '" +
                            schema + "' ORDER BY 1")) {
    const std::string table = str(t[0]);
    std::string text, columns;
    for (const auto& [column, type] : column_types(schema, table)) {
      text += column + " " + type + "\n";
      columns += (columns.empty() ? "\"" : ", \"") + column + "\"";
    }
    for (const row& r : query("SELECT row(" + columns + ")::text AS r FROM \"" + schema + "\".\"" +
                              table + "\" ORDER BY r"))
      text += str(r[0]) + "\n";
    out[table] = text;
  }
  return out;
}

// A connector's dead letters, one line each in origin order. The timestamp rule's reason
// names the clock's bound, which moves between the two runs: that number is masked.
std::vector<std::string> dead_letters_of(const std::string& connector) {
  std::vector<std::string> out;
  for (const row& r :
       query("SELECT concat_ws(' | ', regexp_replace(reason, 'at most [0-9]+ ms', 'at most N ms'), "
             "topic, partition, kafka_offset, "
             "(extract(epoch FROM kafka_timestamp) * 1000)::bigint, encode(key, 'hex'), "
             "encode(value, 'hex'), headers::text) FROM sluice.dead_letters WHERE connector = '" +
             connector + "' ORDER BY topic, partition, kafka_offset, reason"))
    out.push_back(str(r[0]));
  return out;
}

struct parity {
  std::map<std::string, std::string> run_rows, replay_rows;
  std::vector<std::string> run_letters, replay_letters;
};

// Produces `records` (each with its partition) to a new topic and writes the kcat -J lines of
// the same messages; applies the topic with `sluice run` and the file with `sluice replay`.
parity run_and_replay(const std::string& name, const std::string& format, const std::string& extra,
                      std::vector<kafka_record> records, int partitions) {
  const std::string topic = unique_name(name);
  create_topic(topic, partitions);
  const int64_t base = now_ms() - 3'600'000;
  std::map<int, int64_t> next;
  std::string lines;
  for (size_t i = 0; i < records.size(); ++i) {
    kafka_record& r = records[i];
    REQUIRE(r.partition >= 0);
    if (r.timestamp_ms == 0) r.timestamp_ms = base + static_cast<int64_t>(i);
    lines +=
        kcat_line(topic, r.partition, next[r.partition]++, r.key, r.value, "", r.timestamp_ms) +
        "\n";
  }
  produce(topic, records);
  const std::string file = write_run_file(name + ".jsonl", lines);

  const auto config = [&](const std::string& connector, const std::string& schema) {
    execute("CREATE SCHEMA \"" + schema + "\"");
    return basic_config(
        connector, topic, format,
        "errors.tolerance: all\ntable.name.format: \"" + schema + ".${table}\"\n" + extra,
        /*batch_size=*/3);
  };
  const std::string run_connector = unique_name(name + "_run");
  const std::string replay_connector = unique_name(name + "_replay");
  const std::string run_schema = unique_name(name + "_run");
  const std::string replay_schema = unique_name(name + "_replay");

  {
    sluice_process p(config(run_connector, run_schema), name);
    REQUIRE_MESSAGE(caught_up(run_connector, static_cast<int64_t>(records.size())), p.log());
    CHECK(p.stop() == 0);
  }
  const std::string replay_yaml =
      write_run_file(name + ".yaml", config(replay_connector, replay_schema));
  const command_result r = run_sluice({"replay", "-c", replay_yaml, "--file", file});
  INFO("replay stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.exit_code == 0);

  return {replica_of(run_schema), replica_of(replay_schema), dead_letters_of(run_connector),
          dead_letters_of(replay_connector)};
}

// The two sides agree, and the input did what it was built to: `tables` tables with rows, and
// `letters` dead letters whose reasons hold the words asked.
void check_parity(const parity& p, size_t tables, const std::vector<std::string>& reasons) {
  for (const auto& [table, text] : p.run_rows)
    CHECK_MESSAGE(p.replay_rows.contains(table), table);
  for (const auto& [table, text] : p.replay_rows) {
    INFO("table " << table);
    CHECK(text == (p.run_rows.contains(table) ? p.run_rows.at(table) : "<none>"));
  }
  const auto joined = [](const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& line : v)
      out += line.substr(0, 300) + "\n";
    return out;
  };
  CHECK(joined(p.replay_letters) == joined(p.run_letters));
  CHECK(p.run_rows.size() == tables);
  for (const auto& [table, text] : p.run_rows)
    CHECK_MESSAGE(text.find("\n(") != std::string::npos, table << " has no rows:\n" << text);
  REQUIRE(p.run_letters.size() == reasons.size());
  for (size_t i = 0; i < reasons.size(); ++i)
    CHECK_MESSAGE(p.run_letters[i].find(reasons[i]) != std::string::npos, p.run_letters[i]);
}

kafka_record on(int partition, std::optional<std::string> key, std::optional<std::string> value,
                int64_t timestamp_ms = 0) {
  return {std::move(key), std::move(value), partition, timestamp_ms};
}

}  // namespace

TEST_CASE("run and replay agree on Datastream JSON: rules, filter, timestamps, poison") {
  const std::string table = unique_name("ds_parity");
  const auto event = [&](const std::string& op, uint64_t lsn, int id, const std::string& name,
                         const std::string& of_table = "") {
    datastream_event e;
    e.table = of_table.empty() ? table : of_table;
    e.change_type = op;
    e.lsn = lsn;
    e.payload_json = "\"id\":" + std::to_string(id) + ",\"name\":\"" + name + "\"";
    return e.json();
  };
  std::vector<kafka_record> records;
  for (int id = 1; id <= 6; ++id)
    records.push_back(on(id % 2, std::to_string(id), event("INSERT", 100 + id, id, "v1")));
  records.push_back(on(0, "2", event("UPDATE", 200, 2, "v2")));
  records.push_back(on(0, "2", event("UPDATE", 200, 2, "v2")));    // duplicate
  records.push_back(on(1, "3", event("DELETE", 201, 3, "v1")));    // delete
  records.push_back(on(1, "3", event("UPDATE", 150, 3, "late")));  // older than the delete
  records.push_back(on(0, "4", event("UPDATE", 300, 4, "new")));   // newer first,
  records.push_back(on(0, "4", event("UPDATE", 250, 4, "old")));   // older after
  records.push_back(on(1, "5", std::string("{\"not json")));       // poison
  records.push_back(on(0, "6", event("UPDATE", 400, 6, "future"), absurd_ms()));
  records.push_back(on(1, "7", event("INSERT", 500, 7, "skipped", "audit_log")));  // filtered
  records.push_back(on(1, "1", event("UPDATE", 600, 1, "v3")));

  const parity p = run_and_replay("ds_parity", "datastream",
                                  "tables.exclude: [\"public\\\\.audit_log\"]\n", records, 2);
  check_parity(p, 1, {"Kafka timestamp", "invalid_json"});
  CHECK(p.run_rows.begin()->second.find("(1,v3)") != std::string::npos);
}

TEST_CASE("run and replay agree on Datastream Avro: every codec, and a cut container") {
  std::vector<kafka_record> records;
  int partition = 0;
  for (const char* name :
       {"datastream_avro/mysql_backfill", "datastream_avro/mysql_orders",
        "datastream_avro/postgresql_items", "datastream_avro_codecs/mysql_orders_deflate",
        "datastream_avro_codecs/mysql_orders_snappy"})
    records.push_back(on(partition++ % 2, std::nullopt, read_fixture(std::string(name) + ".avro")));
  const std::string cut = read_fixture("datastream_avro/postgresql_items.avro");
  records.push_back(on(0, std::nullopt, cut.substr(0, cut.size() / 2)));

  const parity p = run_and_replay("dsavro_parity", "auto", "", records, 2);
  check_parity(p, 2, {"avro"});
}

TEST_CASE("run and replay agree on GoldenGate: metadata, DML, DDL, a record without its op") {
  const std::string schema = "GGP" + std::to_string(now_ms() % 1'000'000'000);
  const std::string qual = schema + ".ORDERS";
  const auto dml = [&](const std::string& op, int64_t csn, const std::string& images) {
    return R"({"qual_table":")" + qual + R"(","op_type":")" + op +
           R"(","op_ts":"2026-07-13T04:01:01.123456Z","csn":")" + std::to_string(csn) +
           R"(","xid":"x)" + std::to_string(csn) + R"(","pos":"G-AAAA=)" + std::to_string(csn) +
           R"(",)" + images + "}";
  };
  std::vector<kafka_record> records = {
      on(0, std::nullopt,
         R"({"op_type":"OBJECT_METADATA","qual_table":")" + qual + R"(","csn":"100","columns":{
           "ORDER_ID":{"type":"number","null":false,"key":true},
           "STATUS":{"type":"string","null":false,"key":false}}})"),
      on(0, std::nullopt, dml("INSERT", 101, R"("after":{"ORDER_ID":1,"STATUS":"NEW"})")),
      on(0, std::nullopt, dml("INSERT", 102, R"("after":{"ORDER_ID":2,"STATUS":"NEW"})")),
      on(0, std::nullopt, dml("UPDATE", 201, R"("after":{"ORDER_ID":1,"STATUS":"PAID"})")),
      on(0, std::nullopt, dml("DELETE", 202, R"("before":{"ORDER_ID":2})")),
      on(0, std::nullopt,
         R"({"op_type":"DDL","op_ts":"2026-07-13T04:04:30.000000Z","csn":"203","ddl":{"object":{"catalog":"","schema":")" +
             schema + R"(","object":"ORDERS"},"statement":"ALTER TABLE )" + qual +
             R"j( ADD TIER VARCHAR2(20)"}})j"),
      on(0, std::nullopt,
         dml("INSERT", 204, R"("after":{"ORDER_ID":3,"STATUS":"NEW","TIER":"g"})")),
      on(0, std::nullopt, R"({"qual_table":")" + qual + R"(","csn":"205"})"),  // no op_type
      on(0, std::nullopt, dml("UPDATE", 150, R"("after":{"ORDER_ID":1,"STATUS":"LATE"})")),
  };
  const parity p = run_and_replay("gg_parity", "goldengate", "", records, 1);
  check_parity(p, 1, {"op_type"});
  CHECK(p.run_rows.begin()->second.find("(1,PAID,)") != std::string::npos);
}

TEST_CASE("run and replay agree on Aurora DSQL: full and chunked records across partitions") {
  const std::string table = unique_name("dsql_parity");
  const auto full = [&](const std::string& op, const std::string& before, const std::string& after,
                        int64_t ts_ns) {
    return R"({"type":"full","op":")" + op + R"(","before":)" + before + R"(,"after":)" + after +
           R"(,"source":{"version":"1.0","ts_ms":1,"ts_ns":)" + std::to_string(ts_ns) +
           R"(,"txId":"t)" + std::to_string(ts_ns) + R"(","schema":"public","table":")" + table +
           R"(","db":"postgres","cluster":"c1"},"ts_ms":1,"ts_ns":1})";
  };
  const dsql_chunked big = dsql_chunk(
      "chunk-1", R"({"id":9,"v":")" + std::string(300, 'x') + R"("})", 3, "700", "c", table);
  std::vector<kafka_record> records = {
      on(0, std::nullopt, full("c", "null", R"({"id":1,"v":"first"})", 100)),
      on(1, std::nullopt, full("c", "null", R"({"id":2,"v":"first"})", 150)),
      on(2, std::nullopt, full("u", "null", R"({"id":1,"v":"second"})", 300)),
      on(0, std::nullopt, full("c", "null", R"({"id":1,"v":"older"})", 200)),
      on(1, std::nullopt, full("d", R"({"id":2})", "null", 400)),
      on(2, std::nullopt, big.fragments[2]),
      on(0, std::nullopt, big.principal),
      on(1, std::nullopt, big.fragments[0]),
      on(2, std::nullopt, big.fragments[1]),
      on(0, std::nullopt, std::string(R"({"type":"full","op":"c"})")),  // no source
  };
  const parity p = run_and_replay(
      "dsql_parity", "dsql", "tables:\n  \"public." + table + "\":\n    primary.key.fields: [id]\n",
      records, 3);
  check_parity(p, 1, {"source"});
  CHECK(p.run_rows.begin()->second.find("(9,xxx") != std::string::npos);
}

TEST_CASE("run and replay agree on Debezium JSON and on Debezium Avro through the registry") {
  // The fixtures' one change history of public.orders (tests/fixtures/debezium_avro).
  std::vector<kafka_record> json;
  for (const std::string& line : lines_of(read_fixture("debezium_avro/json.jsonl"))) {
    const size_t split = line.find(",\"value\":");
    REQUIRE(split != std::string::npos);
    const std::string key = line.substr(7, split - 7);
    const std::string value = line.substr(split + 9, line.size() - 1 - (split + 9));
    json.push_back(on(0, key, value == "null" ? std::nullopt : std::optional<std::string>(value)));
  }
  json.push_back(on(0, std::string(R"({"id":77})"), std::string(R"({"op":"x","after":null})")));
  const parity pj = run_and_replay("dbz_parity", "debezium", "", json, 1);
  check_parity(pj, 1, {"op"});

  const std::string subject = unique_name("dbz_parity");
  const schema_id key_id =
      register_schema(subject + "-key", read_fixture("debezium_avro/key.avsc"));
  const schema_id value_id =
      register_schema(subject + "-value", read_fixture("debezium_avro/value.avsc"));
  const auto framed = [](int32_t id, const std::string& body) {
    const auto u = static_cast<uint32_t>(id);
    return std::string{'\0', static_cast<char>(u >> 24), static_cast<char>(u >> 16),
                       static_cast<char>(u >> 8), static_cast<char>(u)} +
           body;
  };
  std::vector<kafka_record> avro;
  for (const std::string& line : lines_of(read_fixture("debezium_avro/avro.tsv"))) {
    const size_t tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    std::string key, value;
    REQUIRE(decode_base64(line.substr(0, tab), key));
    REQUIRE(decode_base64(line.substr(tab + 1), value));
    avro.push_back(on(0, framed(key_id.value(), key),
                      value.empty() ? std::nullopt
                                    : std::optional<std::string>(framed(value_id.value(), value))));
  }
  avro.push_back(
      on(0, framed(key_id.value(), "\x02"), framed(999999, std::string(1, '\0'))));  // never issued
  const parity pa = run_and_replay("dbzavro_parity", "debezium",
                                   "schema.registry.url: \"" + registry_url() + "\"\n", avro, 1);
  check_parity(pa, 1, {"999999"});
}

}  // namespace sluice::testing
