#include "sinks/postgres/sql/pg_identifier.h"

#include <doctest/doctest.h>

namespace sluice {
namespace {

TEST_CASE("identifiers are quoted with embedded quotes doubled") {
  CHECK(quote_identifier("a\"b;--") == "\"a\"\"b;--\"");
  CHECK(quote_identifier("") == "\"\"");
}

TEST_CASE("the sink routes with PostgreSQL's 63-byte limit") {
  const table_router r(pg_routing({}));
  CHECK_FALSE(r.route({"", "s", std::string(64, 'a')}, "t").ok());
  CHECK(r.route({"", "s", std::string(63, 'a')}, "t").ok());
  CHECK_FALSE(r.column(std::string(64, 'c')).ok());
}

}  // namespace
}  // namespace sluice
