#include "schemas/common/kcat_line_reader.h"

#include <doctest/doctest.h>

#include <string>

namespace sluice {
namespace {

kcat_message read_ok(std::string_view line) {
  kcat_line_reader reader;
  kcat_message m;
  auto err = reader.read(line, m);
  REQUIRE_MESSAGE(!err, (err ? err->message : std::string()));
  return m;
}

error read_error(std::string_view line) {
  kcat_line_reader reader;
  kcat_message m;
  auto err = reader.read(line, m);
  REQUIRE_MESSAGE(err, "expected an error for: " << line);
  return *err;
}

}  // namespace

TEST_CASE("a kcat -J line gives the message's topic, partition, offset, timestamp, key and value") {
  const auto m = read_ok(
      R"({"topic":"cdc.orders","partition":2,"offset":17,"tstype":"create","ts":1767225600123,)"
      R"("broker":1,"key":"42","payload":"{\"id\":42,\"total\":29.990}"})");
  CHECK(m.topic == "cdc.orders");
  CHECK(m.partition == partition_id{2});
  CHECK(m.offset == kafka_offset{17});
  CHECK(m.timestamp == timestamp_ns{1'767'225'600'123'000'000});
  CHECK(m.key == "42");
  CHECK(m.payload == R"({"id":42,"total":29.990})");
  CHECK(m.headers.empty());

  const raw_message raw = m.view();
  CHECK(raw.topic == "cdc.orders");
  CHECK(raw.partition == partition_id{2});
  CHECK(raw.offset == kafka_offset{17});
  CHECK(raw.key == std::optional<std::string_view>("42"));
  CHECK(raw.value == std::optional<std::string_view>(R"({"id":42,"total":29.990})"));
}

TEST_CASE("a null key and a null payload (a tombstone) stay null, not empty") {
  const auto m = read_ok(R"({"topic":"t","partition":0,"offset":0,"key":null,"payload":null})");
  CHECK_FALSE(m.key.has_value());
  CHECK_FALSE(m.payload.has_value());
  CHECK_FALSE(m.view().value.has_value());
  CHECK(m.timestamp == timestamp_ns{0});  // no ts: kcat prints none when the broker has none
}

TEST_CASE("an empty key is not a null key") {
  const auto m = read_ok(R"({"topic":"t","partition":0,"offset":0,"key":"","payload":"x"})");
  REQUIRE(m.key.has_value());
  CHECK(m.key->empty());
}

TEST_CASE("headers come in order from the alternating array, with null values kept") {
  const auto m = read_ok(
      R"({"topic":"t","partition":0,"offset":1,"headers":["trace","abc","empty",null,"trace","d\"e"],)"
      R"("key":null,"payload":"{}"})");
  REQUIRE(m.headers.size() == 3);
  CHECK(m.headers[0].first == "trace");
  CHECK(m.headers[0].second == "abc");
  CHECK(m.headers[1].first == "empty");
  CHECK_FALSE(m.headers[1].second.has_value());
  CHECK(m.headers[2].second == "d\"e");
  const raw_message raw = m.view();
  REQUIRE(raw.headers.size() == 3);
  CHECK(raw.headers[2].first == "trace");
  CHECK_FALSE(raw.headers[1].second.has_value());
}

TEST_CASE("headers in kcat's map form are read too") {
  const auto m = read_ok(
      R"({"topic":"t","partition":0,"offset":1,"headers":{"a":["1","2"],"b":[null]},"payload":"{}"})");
  REQUIRE(m.headers.size() == 3);
  CHECK(m.headers[0] == std::pair<std::string, std::optional<std::string>>("a", "1"));
  CHECK(m.headers[1] == std::pair<std::string, std::optional<std::string>>("a", "2"));
  CHECK(m.headers[2].first == "b");
  CHECK_FALSE(m.headers[2].second.has_value());
}

TEST_CASE("JSON escapes are resolved byte for byte, surrogate pairs included") {
  const auto m = read_ok(
      R"({"topic":"t","partition":0,"offset":1,"key":"a\u0000b\u0001\n\t\\\/\"","payload":"\u00e9\ud83d\ude00x"})");
  CHECK(*m.key == std::string("a\0b\x01\n\t\\/\"", 9));
  CHECK(*m.payload == "\xc3\xa9\xf0\x9f\x98\x80x");
}

TEST_CASE("bytes kcat copies raw (>= 0x80, not UTF-8) come back exactly") {
  // yajl escapes control bytes but copies the others: a binary key is not valid UTF-8.
  std::string line = R"({"topic":"t","partition":0,"offset":5,"key":")";
  line += "\xff\x80\xc3";
  line += R"(","payload":"v\u0000)";
  line += "\xfe";
  line += R"("})";
  const auto m = read_ok(line);
  CHECK(*m.key == "\xff\x80\xc3");
  CHECK(*m.payload == std::string("v\0\xfe", 3));
}

TEST_CASE("a line ending in CRLF or blanks is read") {
  const auto m = read_ok("{\"topic\":\"t\",\"partition\":1,\"offset\":2,\"payload\":\"p\"}  \r");
  CHECK(m.offset == kafka_offset{2});
}

TEST_CASE("unknown members are validated and ignored") {
  const auto m = read_ok(
      R"({"topic":"t","partition":0,"offset":3,"future":{"a":[1,2]},"payload":"p","key_schema_id":4})");
  CHECK(m.payload == "p");
}

TEST_CASE("a reader reused for many lines forgets what the previous line said") {
  kcat_line_reader reader;
  kcat_message m;
  REQUIRE_FALSE(reader.read(
      R"({"topic":"a","partition":1,"offset":2,"ts":5,"headers":["h","v"],"key":"k","payload":"p"})",
      m));
  REQUIRE_FALSE(reader.read(R"({"topic":"b","partition":0,"offset":9,"payload":null})", m));
  CHECK(m.topic == "b");
  CHECK_FALSE(m.key.has_value());
  CHECK_FALSE(m.payload.has_value());
  CHECK(m.headers.empty());
  CHECK(m.timestamp == timestamp_ns{0});
}

TEST_CASE("invalid lines are errors that say what is wrong") {
  SUBCASE("not JSON") {
    const auto e = read_error("{not json");
    CHECK(e.code == error_code::invalid_json);
  }
  SUBCASE("empty") {
    CHECK(read_error("   ").message.find("empty") != std::string::npos);
  }
  SUBCASE("not an object") {
    CHECK(read_error("[1,2]").code == error_code::wrong_type);
  }
  SUBCASE("a Datastream event rather than a kcat line") {
    const auto e = read_error(R"({"uuid":"x","payload":{"id":1}})");
    CHECK(e.code == error_code::wrong_type);
    CHECK(e.message.find("\"payload\"") != std::string::npos);
  }
  SUBCASE("missing offset") {
    const auto e = read_error(R"({"topic":"t","partition":0,"payload":"p"})");
    CHECK(e.code == error_code::missing_field);
    CHECK(e.message.find("\"offset\"") != std::string::npos);
  }
  SUBCASE("missing payload") {
    CHECK(read_error(R"({"topic":"t","partition":0,"offset":1})").message.find("payload") !=
          std::string::npos);
  }
  SUBCASE("offset as a string") {
    const auto e = read_error(R"({"topic":"t","partition":0,"offset":"1","payload":"p"})");
    CHECK(e.code == error_code::wrong_type);
    CHECK(e.message.find("\"offset\" must be an integer") != std::string::npos);
  }
  SUBCASE("fractional partition") {
    CHECK(read_error(R"({"topic":"t","partition":1.5,"offset":1,"payload":"p"})").code ==
          error_code::wrong_type);
  }
  SUBCASE("negative offset") {
    CHECK(read_error(R"({"topic":"t","partition":0,"offset":-1,"payload":"p"})")
              .message.find("negative") != std::string::npos);
  }
  SUBCASE("partition out of range") {
    CHECK(read_error(R"({"topic":"t","partition":4294967296,"offset":0,"payload":"p"})")
              .message.find("out of range") != std::string::npos);
  }
  SUBCASE("Avro-decoded payload") {
    const auto e = read_error(R"({"topic":"t","partition":0,"offset":0,"payload":{"id":1}})");
    CHECK(e.message.find("-s avro") != std::string::npos);
  }
  SUBCASE("kcat's deserialization error") {
    const auto e = read_error(
        R"({"topic":"t","partition":0,"offset":0,"key":null,"key_error":"no schema","payload":"p"})");
    CHECK(e.message.find("no schema") != std::string::npos);
  }
  SUBCASE("bad escape") {
    const auto e = read_error(R"({"topic":"t","partition":0,"offset":0,"payload":"a\qb"})");
    CHECK(e.code == error_code::invalid_json);
    CHECK(e.message.find("invalid escape") != std::string::npos);
  }
  SUBCASE("lone surrogate") {
    CHECK(read_error(R"({"topic":"t","partition":0,"offset":0,"payload":"\ud800x"})")
              .message.find("surrogate") != std::string::npos);
  }
  SUBCASE("duplicate member") {
    CHECK(read_error(R"({"topic":"t","partition":0,"offset":0,"offset":1,"payload":"p"})")
              .message.find("twice") != std::string::npos);
  }
  SUBCASE("content after the object") {
    CHECK(read_error(R"({"topic":"t","partition":0,"offset":0,"payload":"p"} x)").code ==
          error_code::invalid_json);
  }
  SUBCASE("a header without a value") {
    CHECK(read_error(R"({"topic":"t","partition":0,"offset":0,"headers":["a"],"payload":"p"})")
              .message.find("no value") != std::string::npos);
  }
  SUBCASE("a raw invalid byte outside strings") {
    CHECK(read_error("{\"topic\":\"t\",\"partition\":0,\"offset\":0,\"payload\":\"p\"\xff}").code ==
          error_code::invalid_json);
  }
  SUBCASE("a truncated line (kcat killed mid-write)") {
    CHECK(read_error(R"({"topic":"t","partition":0,"offset":0,"payload":"{\"id)").code ==
          error_code::invalid_json);
  }
}

}  // namespace sluice
