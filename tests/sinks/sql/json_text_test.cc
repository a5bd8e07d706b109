#include "sinks/plan/json_text.h"

#include <doctest/doctest.h>

namespace sluice {
namespace {

TEST_CASE("tombstone keys are readable JSON with exact numbers") {
  CHECK(key_json({"id", "region"}, {value::number("9223372036854775807"), value::string("e\"u")}) ==
        R"({"id":9223372036854775807,"region":"e\"u"})");
  std::string out;
  append_json_string(out, std::string("a\n\t\x01\\", 5));
  CHECK(out == R"("a\n\t\u0001\\")");
}

TEST_CASE("headers keep order and repeats, bytes that are not text are given in hex") {
  CHECK(headers_json({{"a", std::string("1")},
                      {"a", std::string("2")},
                      {"n", std::nullopt},
                      {"b", std::string("\xff\x00", 2)},
                      {std::string("\xc3", 1), std::string("x")}}) ==
        R"([{"key":"a","value":"1"},{"key":"a","value":"2"},{"key":"n","value":null},)"
        R"({"key":"b","value_hex":"ff00"},{"key_hex":"c3","value":"x"}])");
}

TEST_CASE("text PostgreSQL can store is well-formed UTF-8 without NUL") {
  CHECK(is_storable_text("ascii"));
  CHECK(is_storable_text("ünïcödé ✓ 𝄞"));
  CHECK(!is_storable_text(std::string("a\0b", 3)));
  CHECK(!is_storable_text("\xc3"));          // truncated
  CHECK(!is_storable_text("\xc0\xaf"));      // overlong
  CHECK(!is_storable_text("\xed\xa0\x80"));  // surrogate
}

}  // namespace
}  // namespace sluice
