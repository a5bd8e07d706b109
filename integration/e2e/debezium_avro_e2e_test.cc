// Debezium Avro in the Confluent wire format (issue 14) through the real broker and a real
// Schema Registry (Apicurio, services/registry.sh): the fixtures of tests/fixtures/debezium_avro
// hold one change history of `public.orders` twice, as Confluent's AvroConverter and as Kafka's
// JsonConverter write it. The writer schemas are registered here, the Avro bodies framed with
// the ids the registry assigned (magic 0 + 4-byte big-endian id), and each rendering produced to
// a topic of its own, consumed by a `sluice run` of its own (each connector has its own catalog,
// so neither replica can borrow the other's column types) into a schema of its own. The Avro
// replica must converge to exactly the JSON one, with the same typed columns; a message naming a
// schema id the registry never issued is a dead letter that says so, and the rest goes on.

#include <doctest/doctest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/model/base64.h"
#include "integration/support/fixture_files.h"
#include "integration/support/kcat_lines.h"
#include "integration/support/registry_admin.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/connector/http/http_test_client.h"

namespace sluice::testing {
namespace {

constexpr int32_t never_issued_id = 999999;  // 0x0f423f

// The Confluent wire format: magic byte 0, the schema id big-endian, the Avro binary body.
std::string framed(int32_t id, const std::string& body) {
  const auto u = static_cast<uint32_t>(id);
  std::string out{'\0', static_cast<char>(u >> 24), static_cast<char>(u >> 16),
                  static_cast<char>(u >> 8), static_cast<char>(u)};
  return out + body;
}

std::string unbase64(const std::string& text) {
  std::string out;
  REQUIRE_MESSAGE(decode_base64(text, out), text);
  return out;
}

// avro.tsv: per message, base64 key <tab> base64 value (empty: a tombstone).
std::vector<kafka_record> avro_records(int32_t key_id, int32_t value_id) {
  std::vector<kafka_record> out;
  for (const std::string& line : lines_of(read_fixture("debezium_avro/avro.tsv"))) {
    const size_t tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    kafka_record r;
    r.key = framed(key_id, unbase64(line.substr(0, tab)));
    if (tab + 1 < line.size()) r.value = framed(value_id, unbase64(line.substr(tab + 1)));
    r.partition = 0;
    out.push_back(r);
  }
  return out;
}

// json.jsonl: {"key": K, "value": V} per message. The key has no field named "value", so the
// first ,"value": ends it.
std::vector<kafka_record> json_records() {
  std::vector<kafka_record> out;
  for (const std::string& line : lines_of(read_fixture("debezium_avro/json.jsonl"))) {
    const std::string head = "{\"key\":";
    const size_t split = line.find(",\"value\":");
    REQUIRE((line.starts_with(head) && split != std::string::npos && line.ends_with("}")));
    kafka_record r;
    r.key = line.substr(head.size(), split - head.size());
    const std::string value = line.substr(split + 9, line.size() - 1 - (split + 9));
    if (value != "null") r.value = value;
    r.partition = 0;
    out.push_back(r);
  }
  return out;
}

std::string connector_config(const std::string& connector, const std::string& topic,
                             const std::string& target_schema) {
  return basic_config(connector, topic, "debezium",
                      "table.name.format: \"" + target_schema +
                          ".${table}\"\nschema.registry.url: \"" + registry_url() + "\"\n",
                      4);
}

// Every row of schema.orders, ordered by id, as one text per row over `columns`.
std::vector<std::string> rows_of(const std::string& schema,
                                 const std::map<std::string, std::string>& columns) {
  std::string list;
  for (const auto& [column, _] : columns)
    list += (list.empty() ? "" : ", ") + column;
  std::vector<std::string> out;
  for (const row& r :
       query("SELECT id, row(" + list + ")::text FROM \"" + schema + "\".orders ORDER BY id"))
    out.push_back(str(r[0]) + ": " + str(r[1]));
  return out;
}

// An outage that keeps the registry's schemas (its storage is in memory: registry.sh halt
// would lose them): the JVM stopped (SIGSTOP), requests time out; SIGCONT ends it.
void freeze_registry(bool frozen) {
  run_shell(std::string("kill -") + (frozen ? "STOP" : "CONT") + " \"$(cat '" + run_dir() +
            "/registry.pid')\" 2>&1");
}

// The connector's state in /status ("RUNNING", "DEGRADED", ...), empty when it does not answer.
std::string state_of(uint16_t port) {
  try {
    const std::string body = http_request(port, "GET", "/status").body;
    const std::string key = "\"state\":\"";
    const size_t at = body.find(key);
    if (at == std::string::npos) return "";
    const size_t begin = at + key.size();
    return body.substr(begin, body.find('"', begin) - begin);
  } catch (const std::exception&) {
    return "";
  }
}

// One line per column (name type) or row, so that a failed comparison shows both sides.
std::string text(const std::map<std::string, std::string>& types) {
  std::string out;
  for (const auto& [column, type] : types)
    out += column + " " + type + "\n";
  return out;
}
std::string text(const std::vector<std::string>& rows) {
  std::string out;
  for (const std::string& r : rows)
    out += r + "\n";
  return out;
}

}  // namespace

TEST_CASE(
    "Confluent-framed Debezium Avro through a real registry converges exactly like its JSON "
    "twin, with typed columns; an id the registry never issued is a dead letter") {
  const std::string avro_topic = unique_name("dbz_avro");
  const std::string json_topic = unique_name("dbz_json");
  create_topic(avro_topic, 1);
  create_topic(json_topic, 1);

  const int32_t key_id =
      register_schema(avro_topic + "-key", read_fixture("debezium_avro/key.avsc")).value();
  const int32_t value_id =
      register_schema(avro_topic + "-value", read_fixture("debezium_avro/value.avsc")).value();
  REQUIRE(key_id != never_issued_id);
  REQUIRE(value_id != never_issued_id);

  std::vector<kafka_record> avro = avro_records(key_id, value_id);
  const std::vector<kafka_record> json = json_records();
  REQUIRE(avro.size() == json.size());
  // After the snapshot: a value naming a schema id the registry never issued (the body of the
  // next message, which is valid Avro for the real id).
  kafka_record unknown = avro.at(3);
  unknown.value = framed(never_issued_id, unknown.value->substr(5));
  avro.insert(avro.begin() + 3, unknown);
  produce(avro_topic, avro);
  produce(json_topic, json);

  const std::string avro_schema = unique_name("dbz_avro_replica");
  const std::string json_schema = unique_name("dbz_json_replica");
  const std::string avro_connector = unique_name("dbz_avro");
  const std::string json_connector = unique_name("dbz_json");
  sluice_process avro_sluice(connector_config(avro_connector, avro_topic, avro_schema), "dbz_avro");
  sluice_process json_sluice(connector_config(json_connector, json_topic, json_schema), "dbz_json");
  REQUIRE_MESSAGE(
      caught_up(json_connector, static_cast<int64_t>(json.size()), std::chrono::seconds(120)),
      json_sluice.log());
  REQUIRE_MESSAGE(
      caught_up(avro_connector, static_cast<int64_t>(avro.size()), std::chrono::seconds(120)),
      avro_sluice.log());
  INFO("avro sluice:\n" << avro_sluice.log());

  // The JSON twin is the reference: its replica is what Debezium JSON already gives.
  CHECK(dead_letter_count(json_topic) == 0);
  const auto json_types = column_types(json_schema, "orders");
  CHECK(text(json_types) == text(std::map<std::string, std::string>{
                                {"id", "bigint"},
                                {"qty", "smallint"},
                                {"customer_id", "integer"},
                                {"note", "text"},
                                {"amount", "numeric(12,2)"},
                                {"ratio", "numeric"},
                                {"weight", "real"},
                                {"price", "double precision"},
                                {"paid", "boolean"},
                                {"payload", "bytea"},
                                {"order_date", "date"},
                                {"created_at", "timestamp(6) without time zone"},
                                {"updated_at", "timestamp with time zone"},
                                {"pickup", "time(6) without time zone"},
                                {"attrs", "jsonb"},
                                {"ref", "uuid"},
                                {"tags", "text[]"},
                            }));
  const std::vector<std::string> want = rows_of(json_schema, json_types);
  REQUIRE(want.size() == 4);  // rows 1, 3, 4, 5: 2 deleted, 5 deleted and created again
  CHECK(want[0].starts_with("1: "));
  CHECK(want[3].starts_with("5: "));
  CHECK(want[3].find("\"back again\"") != std::string::npos);

  // The Avro replica: the same typed columns and the same rows.
  const auto avro_types = column_types(avro_schema, "orders");
  CHECK(text(avro_types) == text(json_types));
  REQUIRE(avro_types.size() == json_types.size());
  CHECK(text(rows_of(avro_schema, json_types)) == text(want));

  // The one message whose schema id the registry never issued: a dead letter naming the id,
  // holding the message as it came.
  CHECK(dead_letter_count(avro_topic) == 1);
  const std::string reasons = dead_letter_reasons(avro_topic);
  CHECK_MESSAGE(reasons.find(std::to_string(never_issued_id)) != std::string::npos, reasons);
  CHECK(query("SELECT encode(substr(value, 1, 5), 'hex') FROM sluice.dead_letters WHERE topic = '" +
              avro_topic + "'") == std::vector<row>{{"00000f423f"}});

  CHECK(avro_sluice.stop() == 0);
  CHECK(json_sluice.stop() == 0);
}

TEST_CASE(
    "an unreachable registry is waited out in DEGRADED, nothing dead-lettered or passed; after "
    "a restart, the schemas come from the state table while the registry is still away") {
  const std::string topic = unique_name("dbz_avro_outage");
  create_topic(topic, 1);
  // Schemas no connector has fetched yet (the registry numbers equal texts alike, and the
  // other test's connector stored its ids in the state table): a doc of their own.
  const auto own = [&](std::string schema) {
    return schema.insert(1, "\"doc\":\"" + topic + "\","), schema;
  };
  const int32_t key_id =
      register_schema(topic + "-key", own(read_fixture("debezium_avro/key.avsc"))).value();
  const int32_t value_id =
      register_schema(topic + "-value", own(read_fixture("debezium_avro/value.avsc"))).value();
  const std::vector<kafka_record> avro = avro_records(key_id, value_id);
  produce(topic, avro);
  const auto total = static_cast<int64_t>(avro.size());

  const std::string connector = unique_name("dbz_outage");
  const std::string target = unique_name("dbz_outage_replica");
  const uint16_t port = free_port();
  const std::string config = with_metrics_listen(
      connector_config(connector, topic, target) + "schema.registry.timeout.ms: 1000\n", port);

  // The registry stops answering before sluice has seen any schema: nothing can be decoded.
  freeze_registry(true);
  struct thaw {
    ~thaw() { freeze_registry(false); }  // whatever happens, the registry answers again
  } thaw_at_end;
  {
    sluice_process sluice(config, "dbz_outage");
    REQUIRE_MESSAGE(
        wait_until([&] { return state_of(port) == "DEGRADED"; }, std::chrono::seconds(90)),
        sluice.log());
    const std::string status = http_request(port, "GET", "/status").body;
    CHECK_MESSAGE(status.find("schema registry") != std::string::npos, status);
    CHECK(http_request(port, "GET", "/readyz").status == 503);
    std::this_thread::sleep_for(std::chrono::seconds(3));
    CHECK(dead_letter_count(topic) == 0);       // waited out, never dead letters
    CHECK(committed_messages(connector) == 0);  // and never passed

    freeze_registry(false);  // back, with its schemas
    REQUIRE_MESSAGE(caught_up(connector, total, std::chrono::seconds(120)), sluice.log());
    CHECK(wait_until([&] { return state_of(port) == "RUNNING"; }, std::chrono::seconds(30)));
    CHECK(dead_letter_count(topic) == 0);
    CHECK(query("SELECT count(*) FROM \"" + target + "\".orders") == std::vector<row>{{"4"}});
    CHECK(sluice.stop() == 0);
  }

  // Restarted while the registry is away: the schemas fetched before come from the state
  // table (registry_schemas), so the next messages are decoded without it.
  freeze_registry(true);
  produce(topic, avro);  // the same history again: the CSN guard keeps every row as it is
  {
    sluice_process sluice(config, "dbz_outage_restart");
    REQUIRE_MESSAGE(caught_up(connector, 2 * total, std::chrono::seconds(120)), sluice.log());
    CHECK(state_of(port) == "RUNNING");
    CHECK(dead_letter_count(topic) == 0);
    CHECK(query("SELECT count(*) FROM \"" + target + "\".orders") == std::vector<row>{{"4"}});
    CHECK(sluice.stop() == 0);
  }
}

}  // namespace sluice::testing
