// Issue 25: a small message never decodes into a huge one. Avro's block framing lets a few
// bytes claim many items (an array of nulls whose every block claims the rest of the message
// again) and a few kilobytes inflate to megabytes (a container of many deflate blocks): what
// one message may decode into is bounded per message, relative to its bytes once
// decompressed (schemas/common/decode_budget.h), and what its blocks may inflate to in all
// (limits.max_message_bytes). Each hostile message is a too_large error naming its bound; real
// events stay far below it.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "fuzz/fuzz_invariants.h"
#include "schemas/common/decode_budget.h"
#include "schemas/datastream/datastream_decoder.h"
#include "schemas/debezium/debezium_decoder.h"
#include "tests/schemas/avro_fixture.h"
#include "tests/schemas/hostile_avro.h"

namespace sluice {
namespace {

using namespace avro_build;

bool has(const error& e, std::string_view text) {
  return e.message.find(text) != std::string::npos;
}

class two_schemas : public schema_source {
 public:
  two_schemas(std::string value, std::string key) {
    _schemas[1] = std::make_shared<const registered_schema>(
        registered_schema{schema_id{1}, "AVRO", std::move(value)});
    _schemas[2] = std::make_shared<const registered_schema>(
        registered_schema{schema_id{2}, "AVRO", std::move(key)});
  }
  result<std::shared_ptr<const registered_schema>> schema(schema_id id) override {
    return _schemas.at(id.value());
  }

 private:
  std::map<int32_t, std::shared_ptr<const registered_schema>> _schemas;
};

struct debezium_fixture {
  table_catalog catalog;
  debezium_decoder decoder;
  decode_output out;

  explicit debezium_fixture(std::shared_ptr<schema_source> registry = nullptr)
      : decoder(catalog, debezium_options{{}, "__debezium_unavailable_value", registry}) {}

  std::optional<error> decode(std::string_view value,
                              std::optional<std::string_view> key = std::nullopt) {
    raw_message msg;
    msg.topic = "dbserver1.public.t";
    msg.value = value;
    msg.key = key;
    return decoder.decode(msg, out);
  }
};

}  // namespace

TEST_CASE("Avro bounds: a 64 KB event whose null items every block claims again is too_large") {
  // Before issue 25 each block was checked against the bytes left, not the blocks together:
  // ~64K²/5 items, a JSON text of gigabytes. Read as a column, walked over as an unused
  // field, kept as the leaves of an envelope member: each path is bounded.
  for (const extra_at at : {extra_at::payload, extra_at::top_level, extra_at::sort_keys}) {
    CAPTURE(static_cast<int>(at));
    const std::string bytes = null_items_container(64 << 10, at);
    REQUIRE(bytes.size() > 64 << 10);
    REQUIRE(bytes.size() < 66 << 10);
    datastream_fixture f;
    const auto err = f.decode(bytes);
    REQUIRE(err);
    CHECK(err->code == error_code::too_large);
    CHECK_MESSAGE(has(*err, "decoded-output bound of 64 units a byte"), err->message);
    CHECK_MESSAGE(has(*err, "record 0"), err->message);
    CHECK(f.out.changes.empty());
  }
}

TEST_CASE("Avro bounds: items of every 0-byte type are bounded, nested ones too") {
  const std::string items = zero_byte_items(16 << 10);
  for (const std::string type : {
           R"({"type":"array","items":{"type":"record","name":"empty","fields":[]}})",
           R"({"type":"array","items":{"type":"fixed","name":"none","size":0}})",
           R"({"type":"array","items":{"type":"record","name":"nulls","fields":[)"
           R"({"name":"a","type":"null"},{"name":"b","type":"null"}]}})",
       }) {
    CAPTURE(type);
    for (const extra_at at : {extra_at::payload, extra_at::top_level}) {
      datastream_fixture f;
      const auto err =
          f.decode(container(event_schema(at, type), {{1, event_record(1, "a", at, items)}}));
      REQUIRE(err);
      CHECK_MESSAGE(err->code == error_code::too_large, err->message);
      CHECK(f.out.changes.empty());
    }
  }
  SUBCASE("an array of arrays of nulls: each inner array claims the rest again") {
    // [[null × n], [null × n], ...]: an inner array is one byte at least (its end), and its
    // own blocks may claim everything after them: ~20 × 250,000 nulls from 20 KB, too many
    // to walk over (skip()) as well as to read.
    std::string nested;
    for (int i = 0; i < 20; ++i) {
      put_long(nested, 1);  // one inner array
      nested += zero_byte_items(1000);
    }
    put_long(nested, 0);
    const std::string type = R"({"type":"array","items":{"type":"array","items":"null"}})";
    for (const extra_at at : {extra_at::payload, extra_at::top_level, extra_at::sort_keys}) {
      CAPTURE(static_cast<int>(at));
      datastream_fixture f;
      const auto err =
          f.decode(container(event_schema(at, type), {{1, event_record(1, "a", at, nested)}}));
      REQUIRE(err);
      CHECK_MESSAGE(err->code == error_code::too_large, err->message);
    }
  }
  SUBCASE("empty records kept as an envelope member's leaves, or as columns") {
    // An empty record costs no input in any position: as sort_keys' items (each a kept value)
    // and as the payload's columns (each a column of every record).
    const std::string empty = R"({"type":"record","name":"nothing","fields":[]})";
    datastream_fixture f;
    auto err = f.decode(
        container(event_schema(extra_at::sort_keys, R"({"type":"array","items":)" + empty + "}"),
                  {{1, event_record(1, "a", extra_at::sort_keys, items)}}));
    REQUIRE(err);
    CHECK_MESSAGE(err->code == error_code::too_large, err->message);
    std::string columns = R"({"type":"record","name":"e","fields":[)"
                          R"({"name":"read_method","type":"string"},)"
                          R"({"name":"source_metadata","type":{"type":"record","name":"m",)"
                          R"("fields":[{"name":"database","type":"string"},)"
                          R"({"name":"table","type":"string"}]}},)"
                          R"({"name":"payload","type":{"type":"record","name":"p","fields":[)";
    for (int i = 0; i < 4000; ++i) {
      columns += std::string(i ? "," : "") + R"({"name":"c)" + std::to_string(i) + R"(","type":)" +
                 (i ? R"("nothing")" : empty) + "}";
    }
    columns += "]}}]}";
    std::string record;  // read_method, database, table: 29 bytes, then 4,000 empty columns
    put_bytes(record, "mysql-backfill-fulldump");
    put_bytes(record, "d");
    put_bytes(record, "t");
    datastream_fixture g;
    std::string records;
    for (int i = 0; i < 4000; ++i)
      records += record;
    err = g.decode(container(columns, {{4000, records}}));
    REQUIRE(err);
    CHECK_MESSAGE(err->code == error_code::too_large, err->message);
  }
}

TEST_CASE("Avro bounds: an event with a real array of nulls still decodes") {
  std::string items;
  put_long(items, 1000);  // one block of 1,000 nulls, then the end
  put_long(items, 0);
  datastream_fixture f;
  const auto err =
      f.decode(container(event_schema(extra_at::payload, R"({"type":"array","items":"null"})"),
                         {{1, event_record(1, "a", extra_at::payload, items)}}));
  REQUIRE_MESSAGE(!err, (err ? err->message : ""));
  REQUIRE(f.out.changes.size() == 1);
  const std::string& json = f.out.changes[0].after.back().v.text;
  CHECK(json.size() == 1000 * 5 + 1);  // "[null,…,null]"
}

TEST_CASE("Avro bounds: the blocks of one message inflate to the message limit in all") {
  // Each block alone is under the limit (the bound before issue 25 was per block).
  constexpr size_t limit = 1 << 20;
  for (const std::string codec : {"deflate", "snappy"}) {
    CAPTURE(codec);
    const std::string records = event_records(1, 1700, 100);  // ~235 KB, distinct rows
    REQUIRE(records.size() < limit / 4);
    REQUIRE(records.size() > limit / 5);
    const std::string block = codec == "deflate" ? raw_deflate(records) : snappy_block(records);
    std::vector<std::pair<int64_t, std::string>> blocks(20, {1700, block});
    datastream_fixture f(limit);
    const auto err = f.decode(container(event_schema(), blocks, codec));
    REQUIRE(err);
    CHECK(err->code == error_code::too_large);
    CHECK_MESSAGE(has(*err, "blocks decompress to more than 1048576 bytes in all"), err->message);
    CHECK_MESSAGE(has(*err, "limits.max.message.bytes"), err->message);
    CHECK_MESSAGE(has(*err, "block 4"), err->message);  // 4 × 235 KB fit, the fifth does not
    CHECK(f.out.changes.empty());
    SUBCASE("as many blocks as fit decode") {
      blocks.resize(limit / records.size());
      datastream_fixture g(limit);
      const auto ok = g.decode(container(event_schema(), blocks, codec));
      REQUIRE_MESSAGE(!ok, (ok ? ok->message : ""));
      CHECK(g.out.changes.size() == blocks.size() * 1700);
    }
  }
}

TEST_CASE("Avro bounds: 200 deflate blocks of 4 MiB each stop at the default limit") {
  // The second finding: 200 blocks, ~16 KB each on the wire, 4 MiB each inflated.
  const std::string bytes = deflate_blocks_container(200, 4 << 20);
  REQUIRE(bytes.size() < 4 << 20);
  datastream_fixture f;
  const auto err = f.decode(bytes);
  REQUIRE(err);
  CHECK(err->code == error_code::too_large);
  CHECK_MESSAGE(has(*err, "more than 16777216 bytes in all"), err->message);
  CHECK(f.out.changes.empty());
}

TEST_CASE("Avro bounds: a message that inflates a thousandfold earns no more than the cap") {
  // Each record: a 2-byte decimal of scale 16383 (16 KB of text), ~45 bytes in all. Its
  // blocks inflate to half the 1 MiB limit: 64 units a byte of that would allow 32 Mi units;
  // the cap allows 8 × the limit.
  constexpr size_t limit = 1 << 20;
  const std::string decimal =
      R"({"type":"bytes","logicalType":"decimal","precision":16384,"scale":16383})";
  std::string one;
  put_bytes(one, "\x01");
  const std::string record = event_record(1, "a", extra_at::payload, one);
  std::string records;
  while (records.size() + record.size() < limit / 2)
    records += record;
  const size_t count = records.size() / record.size();
  const std::string bytes =
      container(event_schema(extra_at::payload, decimal),
                {{static_cast<int64_t>(count), raw_deflate(records)}}, "deflate");
  REQUIRE(bytes.size() < limit / 100);
  datastream_fixture f(limit);
  const auto err = f.decode(bytes);
  REQUIRE(err);
  CHECK(err->code == error_code::too_large);
  CHECK_MESSAGE(has(*err, "decoded-output bound of 8388608 units (8 × the message limit)"),
                err->message);
  CHECK(f.out.changes.empty());
}

TEST_CASE("Avro bounds: many tiny compressed blocks after a big one cost what they inflate to") {
  // Each block's buffer was first sized to the buffer's capacity (zero-filled): 20,000 blocks
  // after one of 8 MiB filled 160 GB. Now each costs what it inflates to.
  const std::string big = event_records(1, 60'000, 100);  // ~8 MiB
  std::vector<std::pair<int64_t, std::string>> blocks{{60'000, raw_deflate(big)}};
  const std::string small = raw_deflate(event_records(1, 1, 10));
  blocks.resize(20'001, {1, small});
  const std::string bytes = container(event_schema(), blocks, "deflate");
  datastream_fixture f;
  const auto started = std::chrono::steady_clock::now();
  const auto err = f.decode(bytes);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  REQUIRE_MESSAGE(!err, (err ? err->message : ""));
  CHECK(f.out.changes.size() == 80'000);
  MESSAGE("20,001 blocks of a " << bytes.size() << "-byte message decoded in " << seconds << " s");
  SUBCASE("a block of no records must inflate to nothing") {
    std::vector<std::pair<int64_t, std::string>> empty{{0, small}};
    datastream_fixture g;
    const auto refused = g.decode(container(event_schema(), empty, "deflate"));
    REQUIRE(refused);
    CHECK_MESSAGE(has(*refused, "block 0: a block of no records holds bytes"), refused->message);
  }
}

TEST_CASE("Avro bounds: wide, sparse rows decode (a real table of mostly NULL columns)") {
  // 1,000 columns of 24-character names, all null but the key: Datastream Avro charges a
  // name for each column of each record; the row is still far under the bound.
  std::string schema = R"({"type":"record","name":"e","fields":[)"
                       R"({"name":"read_method","type":"string"},)"
                       R"({"name":"source_metadata","type":{"type":"record","name":"m",)"
                       R"("fields":[{"name":"database","type":"string"},)"
                       R"({"name":"table","type":"string"},)"
                       R"({"name":"primary_keys","type":{"type":"array","items":"string"}}]}},)"
                       R"({"name":"payload","type":{"type":"record","name":"p","fields":[)"
                       R"({"name":"id","type":"long"})";
  for (int i = 0; i < 1000; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "a_rather_long_column_%03d", i);
    schema += R"(,{"name":")" + std::string(name) + R"(","type":["null","string"]})";
  }
  schema += "]}}]}";
  std::string records;
  for (int id = 1; id <= 50; ++id) {
    std::string r;
    put_bytes(r, "mysql-backfill-fulldump");
    put_bytes(r, "db");
    put_bytes(r, "wide");
    put_long(r, 1);
    put_bytes(r, "id");
    put_long(r, 0);
    put_long(r, id);
    r.append(1000, '\0');  // every column: the null branch
    records += r;
  }
  datastream_fixture f;
  const auto err = f.decode(container(schema, {{50, records}}));
  REQUIRE_MESSAGE(!err, (err ? err->message : ""));
  CHECK(f.out.changes.size() == 50);
  CHECK(f.out.changes[0].after.size() == 1001);
  SUBCASE("Debezium Avro: 4,096 null columns of 64-character names") {
    std::string row = R"({"type":"record","name":"Value","fields":[{"name":"id","type":"int"})";
    std::string key_schema =
        R"({"type":"record","name":"Key","fields":[{"name":"id","type":"int"}]})";
    for (int i = 0; i < 4095; ++i) {
      char name[80];
      std::snprintf(name, sizeof name, "%060d_col", i);
      row += R"(,{"name":"c)" + std::string(name) + R"(","type":["null","long"]})";
    }
    row += "]}";
    auto registry = std::make_shared<two_schemas>(debezium_envelope_schema(row), key_schema);
    std::string values;
    put_long(values, 7);
    values.append(4095, '\0');  // every column: the null branch
    const std::string body = debezium_row_body(values);
    std::string key;
    put_long(key, 7);
    debezium_fixture g(registry);
    const auto ok = g.decode(confluent_framed(1, body), confluent_framed(2, key));
    REQUIRE_MESSAGE(!ok, (ok ? ok->message : ""));
    REQUIRE(g.out.changes.size() == 1);
    CHECK(g.out.changes[0].after.size() == 4096);
  }
}

TEST_CASE("Avro bounds: the fuzz corpus holds what the builder writes (make_bound_seeds.py)") {
  const auto corpus = [](const std::string& name) {
    return avro_fixture("../../../fuzz/corpus/" + name);
  };
  CHECK(corpus("datastream_avro/regression-null-items-payload") ==
        null_items_container(64 << 10, extra_at::payload));
  CHECK(corpus("datastream_avro/regression-null-items-skipped") ==
        null_items_container(64 << 10, extra_at::top_level));
  CHECK(corpus("datastream_avro/regression-null-items-sort-keys") ==
        null_items_container(64 << 10, extra_at::sort_keys));
}

TEST_CASE("Avro bounds: real events decode far below the output bound") {
  // decoded_units (fuzz/fuzz_invariants.h) measures what a message decoded into; the bound
  // allows 64 units a byte. The committed fixtures, with every codec, use a few.
  for (const std::string name :
       {"mysql_orders.avro", "mysql_backfill.avro", "oracle_emp.avro", "postgresql_items.avro",
        "../datastream_avro_codecs/mysql_orders_deflate.avro",
        "../datastream_avro_codecs/mysql_orders_snappy.avro"}) {
    CAPTURE(name);
    const std::string bytes = avro_fixture(name);
    datastream_fixture f;
    f.catalog.configure_key("ORCL.HR.EMP", {"EMPNO"});
    const auto err = f.decode(bytes);
    REQUIRE_MESSAGE(!err, (err ? err->message : ""));
    const double per_byte =
        static_cast<double>(fuzz::decoded_units(f.out)) / static_cast<double>(bytes.size());
    MESSAGE(name << ": " << per_byte << " units a byte");
    CHECK(per_byte < decode_budget::units_per_byte / 4);
  }
}

TEST_CASE("Avro bounds: a Debezium Avro value or key of null items is too_large") {
  const std::string items = zero_byte_items(64 << 10);
  const std::string array = R"({"type":"array","items":"null"})";
  auto registry =
      std::make_shared<two_schemas>(debezium_value_schema(array), debezium_key_schema(array));
  SUBCASE("in the value") {
    debezium_fixture f(registry);
    const auto err = f.decode(confluent_framed(1, debezium_body(1, items)));
    REQUIRE(err);
    CHECK(err->code == error_code::too_large);
    CHECK_MESSAGE(has(*err, "decoded-output bound"), err->message);
    CHECK(f.out.changes.empty());
  }
  SUBCASE("in the key") {
    std::string none;
    put_long(none, 0);  // an empty array
    std::string key;
    put_long(key, 1);
    key += items;
    debezium_fixture f(registry);
    const auto err =
        f.decode(confluent_framed(1, debezium_body(1, none)), confluent_framed(2, key));
    REQUIRE(err);
    CHECK(err->code == error_code::too_large);
    CHECK_MESSAGE(has(*err, "decoded-output bound"), err->message);
    CHECK(f.out.changes.empty());
  }
  SUBCASE("a real array of nulls decodes") {
    std::string few;
    put_long(few, 3);
    put_long(few, 0);
    debezium_fixture f(registry);
    const auto err = f.decode(confluent_framed(1, debezium_body(1, few)));
    REQUIRE_MESSAGE(!err, (err ? err->message : ""));
    REQUIRE(f.out.changes.size() == 1);
    CHECK(f.out.changes[0].after[1].v.text == "[null,null,null]");
  }
}

TEST_CASE("Debezium bounds: a logical type that stretches a short token is charged") {
  // A Decimal of scale 16383 (PostgreSQL's largest): ~110 bytes of JSON, 16 KB of text each.
  std::string schema_fields, payload;
  for (int i = 0; i < 500; ++i) {
    const std::string name = "d" + std::to_string(i);
    schema_fields += R"(,{"type":"bytes","optional":true,"field":")" + name +
                     R"(","name":"org.apache.kafka.connect.data.Decimal",)"
                     R"("parameters":{"scale":"16383"}})";
    payload += ",\"" + name + R"(":"AQ==")";
  }
  const auto message = [&](const std::string& fields, const std::string& values) {
    return R"({"schema":{"type":"struct","fields":[{"type":"struct","optional":true,)"
           R"("field":"after","fields":[{"type":"int32","field":"id"})" +
           fields +
           R"(]}]},"payload":{"op":"c","source":{"connector":"postgresql","db":"db",)"
           R"("schema":"public","table":"t","lsn":1,"ts_ms":1},"after":{"id":1)" +
           values + "}}}";
  };
  const std::string big = message(schema_fields, payload);
  CHECK(big.size() * decode_budget::units_per_byte < 500 * 16384);
  debezium_fixture f;
  const auto err = f.decode(big, std::string_view(R"({"id":1})"));
  REQUIRE(err);
  CHECK(err->code == error_code::too_large);
  CHECK_MESSAGE(has(*err, "decoded-output bound"), err->message);
  CHECK(f.out.changes.empty());
  SUBCASE("a few such columns decode") {
    const auto first = [](const std::string& list, size_t n, std::string_view sep) {
      size_t at = 0;
      for (size_t i = 0; i <= n; ++i)
        at = list.find(sep, at + 1);
      return list.substr(0, at);
    };
    const std::string few = message(first(schema_fields, 3, ",{"), first(payload, 3, ",\""));
    debezium_fixture g;
    const auto ok = g.decode(few, std::string_view(R"({"id":1})"));
    REQUIRE_MESSAGE(!ok, (ok ? ok->message : ""));
    REQUIRE(g.out.changes.size() == 1);
    REQUIRE(g.out.changes[0].after.size() == 5);
    CHECK(g.out.changes[0].after[1].v.text.size() == 16385);  // "0." + 16382 zeros + "1"
  }
}

}  // namespace sluice
