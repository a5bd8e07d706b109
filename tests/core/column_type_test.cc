#include "core/model/column_type.h"

#include <doctest/doctest.h>

#include "core/model/row_key.h"

namespace sluice {
namespace {

column_type t(std::string_view text) {
  auto parsed = column_type::parse(text);
  REQUIRE_MESSAGE(parsed, text);
  return *parsed;
}

}  // namespace

TEST_CASE("a column type prints and parses back, modifiers and arrays included") {
  for (std::string_view text :
       {"unknown",        "boolean",  "int16",   "int32",         "int64",
        "float32",        "float64",  "decimal", "decimal(12,2)", "string",
        "string(80)",     "bytes",    "uuid",    "json",          "xml",
        "date",           "time(3)",  "timetz",  "timestamp(6)",  "timestamptz",
        "timestamptz(6)", "interval", "text",    "int32[]",       "string(20)[]"}) {
    CHECK(t(text).to_text() == text);
  }
  CHECK(t("decimal(12,2)").precision == 12);
  CHECK(t("decimal(12,2)").scale == 2);
  CHECK(t("string(80)").length == 80);
  CHECK(t("int32[]").array);
  CHECK_FALSE(column_type::parse("varchar(80)"));
  CHECK_FALSE(column_type::parse("int32(4)"));
  CHECK_FALSE(column_type::parse("decimal(12)"));
  CHECK_FALSE(column_type::parse("string(-1)"));
}

TEST_CASE("widening: larger integers, longer strings, more digits, never the reverse") {
  CHECK(widens(t("int16"), t("int32")));
  CHECK(widens(t("int32"), t("int64")));
  CHECK_FALSE(widens(t("int64"), t("int32")));
  CHECK(widens(t("string(40)"), t("string(80)")));
  CHECK_FALSE(widens(t("string(80)"), t("string(40)")));
  CHECK(widens(t("string(80)"), t("string")));
  CHECK_FALSE(widens(t("string"), t("string(80)")));
  CHECK(widens(t("decimal(10,2)"), t("decimal(12,2)")));
  CHECK(widens(t("decimal(10,2)"), t("decimal(12,4)")));
  CHECK_FALSE(widens(t("decimal(10,2)"), t("decimal(10,4)")));  // fewer integer digits
  CHECK(widens(t("int32"), t("decimal(10,0)")));
  CHECK_FALSE(widens(t("int32"), t("decimal(9,0)")));
  CHECK(widens(t("float32"), t("float64")));
  CHECK(widens(t("timestamp(3)"), t("timestamp(6)")));
  CHECK(widens(t("timestamp(3)"), t("timestamp")));
  CHECK_FALSE(widens(t("timestamp(6)"), t("timestamp(3)")));
  CHECK(widens(t("int64"), t("string")));  // text holds any value's text
  CHECK_FALSE(widens(t("int32[]"), t("int64")));
  CHECK_FALSE(widens(t("date"), t("timestamp")));
}

TEST_CASE("the wider of two types holds both, or falls back to text") {
  CHECK(wider_of(t("int16"), t("int64")) == t("int64"));
  CHECK(wider_of(t("string(40)"), t("string(80)")) == t("string(80)"));
  CHECK(wider_of(t("int64"), t("float64")) == t("decimal"));
  CHECK(wider_of(t("timestamp(3)"), t("timestamp(6)")) == t("timestamp(6)"));
  CHECK(wider_of(t("uuid"), t("date")) == t("string"));
  CHECK(wider_of(column_type{}, t("uuid")) == t("uuid"));
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
