#include "sinks/postgres/write/value_target.h"

#include <doctest/doctest.h>

#include <string>

#include "sinks/postgres/sql/pg_array.h"

namespace sluice {
namespace {

using form = rendered_value::form;

const std::string raw_bytes("\x00\xff\x5c\x01", 4);  // NUL, 0xff, a backslash

TEST_CASE("the target is decided from the column's type as format_type prints it") {
  CHECK(target_of("bytea") == value_target::bytea);
  CHECK(target_of("jsonb") == value_target::json);
  CHECK(target_of("json") == value_target::json);
  CHECK(target_of("integer[]") == value_target::array);
  CHECK(target_of("character varying(20)[]") == value_target::array);
  CHECK(target_of("bytea[]") == value_target::bytea_array);
  CHECK(target_of("text") == value_target::plain);
  CHECK(target_of("character varying(40)") == value_target::plain);
  CHECK(target_of("uuid") == value_target::plain);
  CHECK(target_of("[]") == value_target::plain);
}

TEST_CASE("bytes go to bytea as bytes, to text as base64, to json as a base64 string") {
  std::string scratch;
  const value b = value::bytes(raw_bytes);
  rendered_value r = render_value(b, value_target::bytea, scratch);
  CHECK(r.what == form::bytea);
  CHECK(r.text == raw_bytes);
  r = render_value(b, value_target::plain, scratch);
  CHECK(r.what == form::text);
  CHECK(r.text == "AP9cAQ==");
  r = render_value(b, value_target::json, scratch);
  CHECK(r.what == form::text);
  CHECK(r.text == "\"AP9cAQ==\"");
  r = render_value(value::bytes(""), value_target::bytea, scratch);
  CHECK(r.what == form::bytea);
  CHECK(r.text.empty());
}

TEST_CASE("a JSON array goes to an array column as an array literal, elsewhere as JSON") {
  std::string scratch;
  const value a = value::json(R"([1,null,"a \"b\", c"])");
  rendered_value r = render_value(a, value_target::array, scratch);
  CHECK(r.what == form::text);
  CHECK(r.text == R"({1,NULL,"a \"b\", c"})");
  CHECK(render_value(a, value_target::json, scratch).text == a.text);
  CHECK(render_value(a, value_target::plain, scratch).text == a.text);
  // Not an array, or not well-formed: the text as it is (PostgreSQL decides).
  CHECK(render_value(value::json("{\"a\":1}"), value_target::array, scratch).text == "{\"a\":1}");
  CHECK(render_value(value::json("[1,"), value_target::array, scratch).text == "[1,");
  CHECK(render_value(value::string("{1,2}"), value_target::array, scratch).text == "{1,2}");
  // bytea[]: base64 elements as bytea's hex input.
  CHECK(
      render_value(value::json(R"(["AP9cAQ==",null])"), value_target::bytea_array, scratch).text ==
      R"({"\\x00ff5c01",NULL})");
}

TEST_CASE("other kinds keep their text, JSON columns their JSON token, null stays NULL") {
  std::string scratch;
  CHECK(render_value(value::string("x\\y"), value_target::bytea, scratch).text == "x\\y");
  CHECK(render_value(value::number("1.50"), value_target::plain, scratch).text == "1.50");
  CHECK(render_value(value::string("a"), value_target::json, scratch).text == "\"a\"");
  CHECK(render_value(value::null(), value_target::bytea, scratch).what == form::null);
  CHECK(render_value(value::absent(), value_target::json, scratch).what == form::null);
}

TEST_CASE("bytes travel to unnest() as an escaped hex element, to a parameter as hex") {
  pg_array a;
  a.add_bytea(raw_bytes);
  CHECK(a.take() == R"({"\\x00ff5c01"})");
  CHECK(bytea_hex(raw_bytes) == R"(\x00ff5c01)");
}

}  // namespace
}  // namespace sluice
