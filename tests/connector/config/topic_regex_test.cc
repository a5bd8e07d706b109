#include "connector/config/topic_regex.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "connector/config/config_checks.h"

namespace sluice {

TEST_CASE("topics.regex matches from the topic's start, as librdkafka's subscription does") {
  const topic_regex cdc("cdc\\..*");
  CHECK(cdc.matches("cdc.orders"));
  CHECK_FALSE(cdc.matches("x.cdc.orders"));
  CHECK_FALSE(cdc.matches("cdcorders"));
  // An alternation is anchored as a whole, not only its first branch.
  const topic_regex either("a|b");
  CHECK(either.matches("b.orders"));
  CHECK_FALSE(either.matches("xb"));
  // A written ^ changes nothing; POSIX classes and intervals work.
  CHECK(topic_regex("^cdc").matches("cdc.x"));
  CHECK(topic_regex("orders-[[:digit:]]{4}").matches("orders-2026"));
  CHECK_FALSE(topic_regex("orders-[[:digit:]]{4}").matches("orders-26"));
}

TEST_CASE("a pattern that backtracks without end in std::regex matches at once") {
  // fuzz_config's finding: std::regex took over 10 s on "cdcr-" with this pattern (CI).
  const std::string pattern = "^cdc" + std::string(100, '*') + "\\..*";
  REQUIRE(topic_regex::problem(pattern).empty());
  const topic_regex re(pattern);
  CHECK(re.matches("cdcccc.orders"));
  CHECK_FALSE(re.matches("cdcr-"));
  CHECK_FALSE(re.matches(std::string(5000, 'c')));
  CHECK_FALSE(topic_regex("((a*)*)*b").matches(std::string(5000, 'a')));
}

TEST_CASE("patterns that compile to too much, or need back-references, are refused") {
  // glibc's regcomp took 270 MB for this one.
  CHECK_FALSE(topic_regex::problem("((a{255}){255}){20}").empty());
  CHECK_THROWS_AS(topic_regex("((a{255}){255}){20}"), std::invalid_argument);
  CHECK_FALSE(topic_regex::problem("(a)\\1").empty());
  CHECK_FALSE(topic_regex::problem("cdc(").empty());
  // The config check says so in words.
  CHECK(check_topic_regex("", "cdc(").find("is not a POSIX extended regular expression") !=
        std::string::npos);
  CHECK(check_topic_regex("", "cdc\\..*").empty());
}

}  // namespace sluice
