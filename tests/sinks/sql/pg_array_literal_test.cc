#include "sinks/postgres/sql/pg_array_literal.h"

#include <doctest/doctest.h>

#include <optional>
#include <string>

namespace sluice {
namespace {

std::optional<std::string> literal(std::string_view json,
                                   array_elements elements = array_elements::text) {
  std::string out = "kept:";
  if (!append_pg_array_literal(out, json, elements)) return std::nullopt;
  CHECK(out.rfind("kept:", 0) == 0);  // appended, not assigned
  return out.substr(5);
}

TEST_CASE("a JSON array of numbers, booleans and nulls becomes an array literal") {
  CHECK(literal("[1,2,-3.5e2,null]") == "{1,2,-3.5e2,NULL}");
  CHECK(literal(" [ true , false ] ") == "{true,false}");
  CHECK(literal("[]") == "{}");
  CHECK(literal("[ ]") == "{}");
}

TEST_CASE("array string elements are unescaped from JSON, then quoted for the array") {
  CHECK(literal(R"(["a b","",  "NULL", "null"])") == R"({"a b","","NULL","null"})");
  CHECK(literal(R"(["quote \" comma , brace {} backslash \\"])") ==
        R"({"quote \" comma , brace {} backslash \\"})");
  CHECK(literal(R"(["tab\tnew\nline\/"])") == "{\"tab\tnew\nline/\"}");
  // \u escapes, a surrogate pair included, become UTF-8.
  CHECK(literal(R"(["\u00e9\ud83d\ude00\u0022"])") == "{\"\xc3\xa9\xf0\x9f\x98\x80\\\"\"}");
}

TEST_CASE("nested JSON arrays become nested braces, objects quoted JSON elements") {
  CHECK(literal("[[1,2],[3,null]]") == "{{1,2},{3,NULL}}");
  CHECK(literal("[[[]]]") == "{{{}}}");
  CHECK(literal(R"([{"a":"x\"y","b":[1,{"c":2}]},null])") ==
        R"({"{\"a\":\"x\\\"y\",\"b\":[1,{\"c\":2}]}",NULL})");
}

TEST_CASE("what is not one well-formed JSON array is refused") {
  CHECK_FALSE(literal(""));
  CHECK_FALSE(literal("{}"));
  CHECK_FALSE(literal("\"[1]\""));
  CHECK_FALSE(literal("[1,2"));
  CHECK_FALSE(literal("[1,]"));
  CHECK_FALSE(literal("[1 2]"));
  CHECK_FALSE(literal("[1] x"));
  CHECK_FALSE(literal(R"(["open)"));
  CHECK_FALSE(literal(R"(["bad \q escape"])"));
  CHECK_FALSE(literal(R"(["\ud800 lone surrogate"])"));
  CHECK_FALSE(literal("[nul]"));
  CHECK_FALSE(literal("[-]"));
  CHECK_FALSE(literal("[{\"a\":1]"));
  CHECK_FALSE(literal(std::string(100, '[') + std::string(100, ']')));  // too deep
}

TEST_CASE("bytea[] elements are base64 decoded into bytea's escaped hex input") {
  constexpr auto b = array_elements::base64_bytes;
  CHECK(literal(R"(["AP9cAQ==","","AP8",null,["YQ=="]])", b) ==
        R"({"\\x00ff5c01","\\x","\\x00ff",NULL,{"\\x61"}})");
  CHECK(literal(R"(["\/w=="])", b) == R"({"\\xff"})");  // JSON's escaped '/'
  CHECK_FALSE(literal(R"(["not base64!"])", b));
  CHECK_FALSE(literal(R"(["A"])", b));
  CHECK_FALSE(literal(R"(["A==="])", b));
  CHECK_FALSE(literal(R"(["AP==8"])", b));
  CHECK_FALSE(literal(R"(["AP8=)", b));
}

}  // namespace
}  // namespace sluice
