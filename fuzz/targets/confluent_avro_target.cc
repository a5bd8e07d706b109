// Fuzz target body for Confluent-framed Avro: the first input byte picks what the rest is —
// 0xff: a Debezium envelope's body of hostile_value_schema below (a row with an array of
// nulls and one of empty records, issue 25); else, by the byte modulo 3, 0: a Debezium
// envelope's body, 1: a Debezium key's body (beside a valid value), 2: a Datastream event's
// body — framed with the id of that writer schema in a registry held in memory (the schemas
// of tests/fixtures/confluent_avro/, whose fastavro-written bodies seed the corpus). The
// decoders must return changes or an error value, never crash, never allocate past their
// bound (schemas/avro/avro_allocator.h), never decode into more than the output bound allows
// (fuzz_invariants.h).
#include <fstream>
#include <map>
#include <sstream>

#include "core/model/base64.h"
#include "fuzz/fuzz_invariants.h"
#include "fuzz/fuzz_targets.h"
#include "schemas/datastream/datastream_decoder.h"
#include "schemas/debezium/debezium_decoder.h"

namespace sluice::fuzz {
namespace {

std::string schema_file(const std::string& name) {
  std::ifstream in(std::string(SLUICE_FUZZ_CORPUS_DIR) + "/../../tests/fixtures/confluent_avro/" +
                   name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A Debezium envelope (PostgreSQL source) whose row holds items of 0-byte types: what an
// attacker's registered schema may say. Bodies: tests/schemas/avro_message_bounds_test.cc.
constexpr char hostile_value_schema[] =
    R"({"type":"record","name":"Envelope","namespace":"dbserver1.public.t","fields":[)"
    R"({"name":"before","type":["null",{"type":"record","name":"Value","fields":[)"
    R"({"name":"id","type":"int"},{"name":"nulls","type":{"type":"array","items":"null"}},)"
    R"({"name":"empties","type":{"type":"array","items":{"type":"record","name":"E",)"
    R"("fields":[]}}}]}],"default":null},{"name":"after","type":["null","Value"]},)"
    R"({"name":"source","type":{"type":"record","name":"Source","fields":[)"
    R"({"name":"connector","type":"string"},{"name":"ts_ms","type":"long"},)"
    R"({"name":"db","type":"string"},{"name":"schema","type":"string"},)"
    R"({"name":"table","type":"string"},{"name":"lsn","type":["null","long"]}]}},)"
    R"({"name":"op","type":"string"}]})";

class fixture_registry : public schema_source {
 public:
  fixture_registry() {
    const char* files[] = {"debezium_value.avsc", "debezium_key.avsc",
                           "datastream_mysql_orders.avsc"};
    for (int32_t id = 1; id <= 3; ++id) {
      _schemas[id] = std::make_shared<const registered_schema>(
          registered_schema{schema_id{id}, "AVRO", schema_file(files[id - 1])});
    }
    _schemas[4] = std::make_shared<const registered_schema>(
        registered_schema{schema_id{4}, "AVRO", hostile_value_schema});
  }
  result<std::shared_ptr<const registered_schema>> schema(schema_id id) override {
    auto it = _schemas.find(id.value());
    if (it == _schemas.end()) return make_error(error_code::unsupported, "unknown schema id");
    return it->second;
  }

 private:
  std::map<int32_t, std::shared_ptr<const registered_schema>> _schemas;
};

std::string framed(int32_t id, std::string_view body) {
  std::string out{'\0', '\0', '\0', '\0', static_cast<char>(id)};
  out.append(body);
  return out;
}

// A valid Debezium value (the fixture's snapshot read), for inputs that fuzz the key.
constexpr char valid_value_base64[] =
    "AAICAgYCBAu3ArK0AgKAgeHYyr6HBgI2MjAyNC0wMS0xNVQxMTozMDowMC4xMjM0NTZaAqC6rbq0AgIGBDA5Ahp7Im"
    "EiOiBbMSwgMl19AkgwMDAwMDAwMC0wMDAwLTAwMDAtMDAwMC0wMDAwMDAwMDAwMDECBgAB/wIBAgAAAAAAAOA/AgAA"
    "oD8CBAJ4AnkAAg5vcmRlciAxFjIuNS4wLkZpbmFsFHBvc3RncmVzcWwSZGJzZXJ2ZXIxyMyVzqFjAAh0cnVlEmludm"
    "VudG9yeQIYWyI5MiIsIjEwMCJdDHB1YmxpYwxvcmRlcnMCwAwCyAEAAnIC6NKVzqFjAA==";

}  // namespace

void fuzz_confluent_avro(std::string_view input) {
  if (input.empty()) return;
  static const auto registry = std::make_shared<fixture_registry>();
  const auto selector = static_cast<unsigned char>(input.front());
  const int kind = selector == 0xff ? 3 : selector % 3;
  const std::string_view body = input.substr(1);
  decode_limits limits;
  limits.max_message_bytes = 128 << 10;  // inputs of 64 KiB and more reach the bounds
  limits.max_depth = 12;
  limits.max_columns = 40;
  table_catalog catalog;
  raw_message msg;
  msg.topic = "fuzz";
  msg.offset = kafka_offset{100};
  msg.timestamp = timestamp_ns{1'767'225'600'000'000'000};
  std::string value, key;
  if (kind == 2) {
    datastream_decoder d(catalog, datastream_options{limits, "UTC", registry});
    value = framed(3, body);
    msg.value = value;
    decode_and_check(d, catalog, msg);
    return;
  }
  debezium_decoder d(catalog, debezium_options{limits, "__debezium_unavailable_value", registry});
  if (kind == 0 || kind == 3) {
    value = framed(kind == 0 ? 1 : 4, body);
  } else {
    std::string valid;
    decode_base64(valid_value_base64, valid);
    value = framed(1, valid);
    key = framed(2, body);
    msg.key = key;
  }
  msg.value = value;
  decode_and_check(d, catalog, msg);
}

}  // namespace sluice::fuzz
