// Datastream Avro containers that are cut, corrupt or hostile: each is an error value naming
// what is wrong, never a crash, never a partial result (SPEC §3). Run under ASan once
// (-DSLUICE_SANITIZE=ON).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "schemas/avro/avro_allocator.h"
#include "schemas/datastream/datastream_decoder.h"
#include "tests/schemas/avro_fixture.h"
#include "tests/schemas/hostile_avro.h"

namespace sluice {
namespace {

std::string fixture(const std::string& name) {
  return avro_fixture(name);
}

using avro_build::container;
using avro_build::event_record;
using avro_build::put_bytes;
using avro_build::put_long;
const std::string event_schema = avro_build::event_schema();

}  // namespace

TEST_CASE("Datastream Avro: a hand-built container decodes (the builder the hostile tests use)") {
  datastream_fixture f;
  REQUIRE_FALSE(
      f.decode(container(event_schema, {{2, event_record(1, "a") + event_record(2, "b")}})));
  REQUIRE(f.out.changes.size() == 2);
  CHECK(f.out.changes[1].after[1].v.text == "b");
}

TEST_CASE("Datastream Avro: a timestamp before year 1 is written as PostgreSQL reads it") {
  const std::string schema = R"({"type":"record","name":"e","fields":[
  {"name":"read_method","type":"string"},
  {"name":"source_metadata","type":{"type":"record","name":"m","fields":[
    {"name":"database","type":"string"},{"name":"table","type":"string"},
    {"name":"primary_keys","type":{"type":"array","items":"string"}}]}},
  {"name":"payload","type":{"type":"record","name":"p","fields":[
    {"name":"id","type":"long"},
    {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}}]}}]})";
  std::string r;
  put_bytes(r, "mysql-backfill-fulldump");
  put_bytes(r, "db");
  put_bytes(r, "t");
  put_long(r, 1);
  put_bytes(r, "id");
  put_long(r, 0);
  put_long(r, 1);
  put_long(r, -62'167'219'200'000'000 - 86'400'000'000);  // 0000-12-31 = 1 BC
  datastream_fixture f;
  REQUIRE_FALSE(f.decode(container(schema, {{1, r}})));
  REQUIRE(f.out.changes.size() == 1);
  const std::string& ts = f.out.changes[0].after[1].v.text;
  CHECK(ts.ends_with("+00 BC"));
  CHECK(ts.find('Z') == std::string::npos);
}

TEST_CASE(
    "Datastream Avro: a container cut anywhere is an error or fewer whole blocks, never a crash") {
  const std::string whole = fixture("mysql_orders.avro");
  for (size_t n = 0; n < whole.size(); ++n) {
    datastream_fixture f;
    auto err = f.decode(std::string_view(whole).substr(0, n));
    if (err) {
      CHECK(f.out.changes.empty());  // never a partial result
    } else {
      CHECK(f.out.changes.size() < 5);  // cut exactly between blocks: the blocks before
    }
  }
  datastream_fixture f;  // cut inside the last block
  auto err = f.decode(std::string_view(whole).substr(0, whole.size() - 20));
  REQUIRE(err);
  CHECK(err->code == error_code::invalid_avro);
  CHECK(f.out.changes.empty());
}

TEST_CASE("Datastream Avro: a wrong sync marker is an error naming it") {
  std::string bytes = fixture("postgresql_items.avro");
  bytes[bytes.size() - 1] ^= 0x01;
  datastream_fixture f;
  auto err = f.decode(bytes);
  REQUIRE(err);
  CHECK(err->message.find("sync marker") != std::string::npos);
  CHECK(f.out.changes.empty());
}

TEST_CASE("Datastream Avro: records that do not match the schema are errors") {
  datastream_fixture f;
  SUBCASE("a record shorter than the schema") {
    auto err = f.decode(container(event_schema, {{1, event_record(1, "a").substr(0, 10)}}));
    REQUIRE(err);
    CHECK(err->code == error_code::invalid_avro);
  }
  SUBCASE("bytes left after the block's records") {
    auto err = f.decode(container(event_schema, {{1, event_record(1, "a") + "xyz"}}));
    REQUIRE(err);
    CHECK(err->message.find("bytes left") != std::string::npos);
  }
  SUBCASE("a second record that is corrupt fails the whole message") {
    auto err = f.decode(container(event_schema, {{2, event_record(1, "a") + "\x01"}}));
    REQUIRE(err);
    CHECK(f.out.changes.empty());
  }
  SUBCASE("more records than bytes") {
    auto err = f.decode(container(event_schema, {{1000000, event_record(1, "a")}}));
    REQUIRE(err);
    CHECK(err->message.find("more records than bytes") != std::string::npos);
  }
  SUBCASE("a schema that is not a Datastream event") {
    auto err = f.decode(container(R"("string")", {{1, std::string("\x02x", 2)}}));
    REQUIRE(err);
    CHECK(err->message.find("must be a record") != std::string::npos);
  }
  SUBCASE("a recursive schema (Avro C would recurse without end)") {
    auto err = f.decode(
        container(R"({"type":"record","name":"e","fields":[{"name":"next","type":"e"}]})", {}));
    REQUIRE(err);
    CHECK(err->message.find("recursive") != std::string::npos);
  }
  SUBCASE("a record with two fields of one name (Avro C accepts it)") {
    auto err = f.decode(container(
        R"({"type":"record","name":"e","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]})",
        {}));
    REQUIRE(err);
    CHECK(err->message.find("two fields named") != std::string::npos);
  }
  SUBCASE("a named type defined twice (Avro C refuses it but leaks what it parsed)") {
    auto err = f.decode(container(
        R"({"type":"record","name":"e","fields":[{"name":"m","type":{"type":"record",)"
        R"("name":"m","fields":[{"name":"n","type":{"type":"record","name":"m","fields":[]}}]}}]})",
        {}));
    REQUIRE(err);
    CHECK(err->code == error_code::invalid_avro);
    CHECK(err->message.find("named type m defined twice") != std::string::npos);
  }
  SUBCASE("a repeated key (simdjson reads the first, Avro C the last: a recursive field)") {
    // Avro C would read this as {"x": ["null", "R"]} and recurse through the bytes below.
    const std::string nested(4096, '\x02');
    auto err = f.decode(container(
        R"({"type":"record","name":"R","fields":[{"name":"x","type":"null","type":["null","R"]}]})",
        {{1, nested}}));
    REQUIRE(err);
    CHECK(err->message.find("two \"type\" members") != std::string::npos);
  }
  SUBCASE("named types that double at each level (2^20 value nodes for Avro C)") {
    std::string type = R"({"type":"record","name":"L0","fields":[{"name":"a","type":"int"}]})";
    for (int k = 1; k <= 20; ++k) {
      type = R"({"type":"record","name":"L)" + std::to_string(k) +
             R"(","fields":[{"name":"a","type":)" + type + R"(},{"name":"b","type":"L)" +
             std::to_string(k - 1) + R"("}]})";
    }
    auto err = f.decode(container(type, {{1, std::string("\x02")}}));
    REQUIRE(err);
    CHECK(err->code == error_code::too_large);
    CHECK(err->message.find("expand to more than") != std::string::npos);
  }
  SUBCASE("a chain of named types deeper than the limit, written flat") {
    std::string fields = R"({"name":"f0","type":{"type":"record","name":"C0","fields":[]}})";
    for (int i = 1; i <= 100; ++i) {
      fields += R"(,{"name":"f)" + std::to_string(i) + R"(","type":{"type":"record","name":"C)" +
                std::to_string(i) + R"(","fields":[{"name":"x","type":"C)" + std::to_string(i - 1) +
                R"("}]}})";
    }
    auto err = f.decode(
        container(R"({"type":"record","name":"top","fields":[)" + fields + "]}", {{1, "\x02"}}));
    REQUIRE(err);
    CHECK(err->code == error_code::too_deep);
    CHECK(err->message.find("through its named types") != std::string::npos);
  }
  SUBCASE("a schema that is not JSON") {
    auto err = f.decode(container("{nope", {}));
    REQUIRE(err);
    CHECK(err->code == error_code::invalid_avro);
  }
  SUBCASE("an unsupported codec") {
    auto err = f.decode(container(event_schema, {{1, event_record(1, "a")}}, "zstandard"));
    REQUIRE(err);
    CHECK(err->code == error_code::unsupported);
    CHECK(err->message.find("\"zstandard\"") != std::string::npos);
  }
  SUBCASE("text holding NUL") {
    auto err = f.decode(container(event_schema, {{1, event_record(1, std::string("a\0b", 3))}}));
    REQUIRE(err);
    CHECK(err->code == error_code::nul_in_text);
  }
  CHECK(f.out.changes.empty());
}

TEST_CASE("Datastream Avro: a huge length prefix is refused by the allocator, not allocated") {
  datastream_fixture f;
  std::string r;
  put_bytes(r, "mysql-backfill-fulldump");
  put_bytes(r, "db");
  put_bytes(r, "t");
  put_long(r, 0);
  put_long(r, 1);
  put_long(r, int64_t{1} << 40);  // a string of a terabyte
  r += "tail";
  CHECK(avro_allocation_bound() < (size_t{1} << 40));
  auto err = f.decode(container(event_schema, {{1, r}}));
  REQUIRE(err);
  CHECK(err->code == error_code::invalid_avro);
  CHECK(f.out.changes.empty());
  // The decoder still works afterwards.
  REQUIRE_FALSE(f.decode(container(event_schema, {{1, event_record(5, "ok")}})));
  CHECK(f.out.changes.size() == 1);
}

TEST_CASE("Datastream Avro: the schema is parsed once per distinct schema text") {
  table_catalog catalog;
  datastream_avro_reader reader(decode_limits{});
  const std::string bytes = fixture("mysql_orders.avro");
  datastream_event e;
  for (int i = 0; i < 3; ++i) {
    REQUIRE_FALSE(reader.open(bytes));
    while (true) {
      auto more = reader.next(e);
      REQUIRE(more);
      if (!*more) break;
    }
  }
  CHECK(reader.builds() == 1);
}

}  // namespace sluice
