#include <doctest/doctest.h>

#include <string>

#include "schemas/registry/confluent_frame.h"

using namespace sluice;
using namespace std::string_literals;

TEST_CASE("a Confluent frame gives its big-endian schema id and the bytes after the header") {
  const std::string message = "\x00\x00\x00\x01\x02payload"s;
  auto frame = parse_confluent_frame(message);
  REQUIRE(frame.ok());
  CHECK(frame->id == schema_id(258));
  CHECK(frame->payload == "payload");
  CHECK(frame->payload.data() == message.data() + 5);  // a view, not a copy
}

TEST_CASE("a Confluent frame with an empty payload is still a frame") {
  auto frame = parse_confluent_frame("\x00\x7f\xff\xff\xff"s);
  REQUIRE(frame.ok());
  CHECK(frame->id == schema_id(2147483647));
  CHECK(frame->payload.empty());
}

TEST_CASE("a schema id of 0 or below is an error, never a registry request") {
  for (const std::string& message :
       {"\x00\x80\x00\x00\x01x"s, "\x00\xff\xff\xff\xff"s, "\x00\x00\x00\x00\x00x"s}) {
    auto frame = parse_confluent_frame(message);
    REQUIRE_FALSE(frame.ok());
    CHECK(frame.err().code == error_code::unsupported);
    CHECK(frame.err().message.find("is not a valid registry id") != std::string::npos);
  }
  auto negative = parse_confluent_frame("\x00\xff\xff\xff\xff"s);
  REQUIRE_FALSE(negative.ok());
  CHECK(negative.err().message == "schema id -1 is not a valid registry id");
}

TEST_CASE("schema id bytes above 0x7f are read unsigned") {
  auto frame = parse_confluent_frame(
      "\x00\x00\x00\x80\xff"
      "x"s);
  REQUIRE(frame.ok());
  CHECK(frame->id == schema_id(0x80ff));
}

TEST_CASE("a message shorter than the Confluent header is not a frame") {
  for (const std::string& message : {""s, "\x00"s, "\x00\x00\x00\x01"s}) {
    auto frame = parse_confluent_frame(message);
    REQUIRE_FALSE(frame.ok());
    CHECK(frame.err().code == error_code::unsupported);
    CHECK(frame.err().message.find("shorter than its 5-byte header") != std::string::npos);
  }
}

TEST_CASE("a message whose magic byte is not 0 is not a Confluent frame") {
  auto frame = parse_confluent_frame("{\"a\":1}");
  REQUIRE_FALSE(frame.ok());
  CHECK(frame.err().code == error_code::unsupported);
  CHECK(frame.err().message.find("magic byte is 123") != std::string::npos);
}
