#include "connector/prepare/transforms/regex_router.h"

#include <doctest/doctest.h>

#include <string>

// RegexRouter as Kafka Connect runs it: Matcher.matches() on the whole topic, then the
// replacement with Java's $n and \ rules (issue 28).

using namespace sluice;

namespace {

regex_router router(const std::string& regex, const std::string& replacement) {
  auto r = regex_router::compile(regex, replacement);
  if (auto* why = std::get_if<std::string>(&r)) FAIL(*why);
  return std::get<regex_router>(std::move(r));
}

std::string compile_error(const std::string& regex, const std::string& replacement) {
  auto r = regex_router::compile(regex, replacement);
  auto* why = std::get_if<std::string>(&r);
  return why ? *why : std::string();
}

}  // namespace

TEST_CASE("RegexRouter renames a topic its regex matches whole, with Java's group references") {
  // The commonest: drop Debezium's server and schema prefix.
  const regex_router drop_prefix = router("([^.]+)\\.([^.]+)\\.([^.]+)", "$3");
  CHECK(drop_prefix.route("dbserver1.public.orders") == "orders");
  // Not matched whole (Java's matches(), not find()): left as it is.
  CHECK(drop_prefix.route("dbserver1.public") == "dbserver1.public");
  CHECK(drop_prefix.route("a.b.c.d") == "a.b.c.d");
  const regex_router partial = router("public", "x");
  CHECK(partial.route("dbserver1.public.orders") == "dbserver1.public.orders");
  // $0 is the whole topic; literal text around groups; \ escapes.
  CHECK(router("cdc\\.(.*)", "replica_$1_\\$0").route("cdc.orders") == "replica_orders_$0");
  CHECK(router("(.*)", "$0.v2").route("orders") == "orders.v2");
  // Java reads further digits while they still name a group: with one group, $12 is $1 then 2.
  CHECK(router("t(.)", "$12").route("tx") == "x2");
  // An optional group that did not take part adds nothing.
  CHECK(router("(a)?(b)", "[$1$2]").route("b") == "[b]");
}

TEST_CASE("RegexRouter refuses what Java would refuse, and what std::regex cannot read") {
  CHECK(compile_error("(a)", "$2").find("$2 names no group") != std::string::npos);
  CHECK(compile_error("(a)", "cost $").find("names no group") != std::string::npos);
  CHECK(compile_error("(a)", "$x").find("group number") != std::string::npos);
  CHECK(compile_error("(a)", "a\\").find("escapes nothing") != std::string::npos);
  CHECK(compile_error("(?<n>a)", "$1").find("not a valid regular expression") != std::string::npos);
  CHECK(compile_error("(a)", "${n}").find("named") != std::string::npos);
  // Java's possessive quantifier would silently mean something else in ECMAScript.
  CHECK(compile_error("a++b", "x").find("possessive") != std::string::npos);
  CHECK(compile_error("[+]+", "x").empty());  // a class of '+', repeated
  CHECK(compile_error("\\++", "x").empty());  // a literal '+', repeated
}
