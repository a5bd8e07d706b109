#include "core/model/column_type.h"

#include <doctest/doctest.h>

#include "core/model/row_key.h"
#include "tests/core/parsed_type.h"

namespace sluice {

TEST_CASE("a column type prints and parses back, modifiers and arrays included") {
  for (std::string_view text :
       {"unknown",        "boolean",  "int16",   "int32",         "int64",
        "float32",        "float64",  "decimal", "decimal(12,2)", "string",
        "string(80)",     "bytes",    "uuid",    "json",          "xml",
        "date",           "time(3)",  "timetz",  "timestamp(6)",  "timestamptz",
        "timestamptz(6)", "interval", "text",    "int32[]",       "string(20)[]"}) {
    CHECK(parsed_type(text).to_text() == text);
  }
  CHECK(parsed_type("decimal(12,2)").precision == 12);
  CHECK(parsed_type("decimal(12,2)").scale == 2);
  CHECK(parsed_type("string(80)").length == 80);
  CHECK(parsed_type("int32[]").array);
  CHECK_FALSE(column_type::parse("varchar(80)"));
  CHECK_FALSE(column_type::parse("int32(4)"));
  CHECK_FALSE(column_type::parse("decimal(12)"));
  CHECK_FALSE(column_type::parse("string(-1)"));
}

TEST_CASE("widening: larger integers, longer strings, more digits, never the reverse") {
  CHECK(widens(parsed_type("int16"), parsed_type("int32")));
  CHECK(widens(parsed_type("int32"), parsed_type("int64")));
  CHECK_FALSE(widens(parsed_type("int64"), parsed_type("int32")));
  CHECK(widens(parsed_type("string(40)"), parsed_type("string(80)")));
  CHECK_FALSE(widens(parsed_type("string(80)"), parsed_type("string(40)")));
  CHECK(widens(parsed_type("string(80)"), parsed_type("string")));
  CHECK_FALSE(widens(parsed_type("string"), parsed_type("string(80)")));
  CHECK(widens(parsed_type("decimal(10,2)"), parsed_type("decimal(12,2)")));
  CHECK(widens(parsed_type("decimal(10,2)"), parsed_type("decimal(12,4)")));
  CHECK_FALSE(
      widens(parsed_type("decimal(10,2)"), parsed_type("decimal(10,4)")));  // fewer integer digits
  CHECK(widens(parsed_type("int32"), parsed_type("decimal(10,0)")));
  CHECK_FALSE(widens(parsed_type("int32"), parsed_type("decimal(9,0)")));
  CHECK(widens(parsed_type("float32"), parsed_type("float64")));
  CHECK(widens(parsed_type("timestamp(3)"), parsed_type("timestamp(6)")));
  CHECK(widens(parsed_type("timestamp(3)"), parsed_type("timestamp")));
  CHECK_FALSE(widens(parsed_type("timestamp(6)"), parsed_type("timestamp(3)")));
  CHECK(widens(parsed_type("int64"), parsed_type("string")));  // text holds any value's text
  CHECK_FALSE(widens(parsed_type("int32[]"), parsed_type("int64")));
  CHECK_FALSE(widens(parsed_type("date"), parsed_type("timestamp")));
}

TEST_CASE("the wider of two types holds both, or falls back to text") {
  CHECK(wider_of(parsed_type("int16"), parsed_type("int64")) == parsed_type("int64"));
  CHECK(wider_of(parsed_type("string(40)"), parsed_type("string(80)")) ==
        parsed_type("string(80)"));
  CHECK(wider_of(parsed_type("int64"), parsed_type("float64")) == parsed_type("decimal"));
  CHECK(wider_of(parsed_type("timestamp(3)"), parsed_type("timestamp(6)")) ==
        parsed_type("timestamp(6)"));
  CHECK(wider_of(parsed_type("uuid"), parsed_type("date")) == parsed_type("string"));
  CHECK(wider_of(column_type{}, parsed_type("uuid")) == parsed_type("uuid"));
}

TEST_CASE("a binary key is one key whether it came as bytes or as their base64 text") {
  auto bytes = make_row_key({"k"}, {value::bytes(std::string("\x00\xff\x5c", 3))});
  auto base64 = make_row_key({"k"}, {value::string("AP9c")});
  REQUIRE((bytes.ok() && base64.ok()));
  CHECK(bytes->canonical == base64->canonical);
  CHECK(bytes->values[0].kind == value_kind::bytes);  // still bytes, for a bytea column
  auto other = make_row_key({"k"}, {value::bytes(std::string("\x00\xfe", 2))});
  REQUIRE(other.ok());
  CHECK(other->canonical != bytes->canonical);
}

}  // namespace sluice
