#include "sinks/postgres/sql/pg_array.h"

#include <doctest/doctest.h>

namespace sluice {
namespace {

TEST_CASE("array elements are quoted and escaped, never interpreted") {
  pg_array a;
  a.add("plain");
  a.add("quote \" and backslash \\");
  a.add("{braces}, commas; -- and NULL");
  a.add("");
  a.add_null();
  a.add("NULL");
  CHECK(a.size() == 6);
  CHECK(a.take() ==
        R"({"plain","quote \" and backslash \\","{braces}, commas; -- and NULL","",NULL,"NULL"})");
  CHECK(a.size() == 0);
  CHECK(a.take() == "{}");
}

TEST_CASE("bytea elements travel in hex, integers and booleans bare") {
  pg_array a;
  a.add_bytea(std::string("\x00\x01\xff", 3));
  a.add_bytea("");
  CHECK(a.take() == R"({"\\x0001ff","\\x"})");
  a.add_int(-9223372036854775807LL - 1);
  a.add_int(42);
  CHECK(a.take() == "{-9223372036854775808,42}");
  a.add_bool(true);
  a.add_bool(false);
  CHECK(a.take() == "{t,f}");
  CHECK(bytea_hex("\x0a") == "\\x0a");
}

}  // namespace
}  // namespace sluice
