#include "connector/config/env_substitution.h"

#include <doctest/doctest.h>

#include <map>

using namespace sluice;

namespace {

env_lookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

const env_lookup env = env_of({{"USER", "sluice"}, {"EMPTY", ""}, {"PW", "p${NOT_AGAIN}"}});

}  // namespace

TEST_CASE("a set variable is replaced, wherever it stands in the value") {
  const auto s = substitute_env("postgresql://${USER}@db/${USER}", env, false);
  CHECK(s.errors.empty());
  CHECK(s.text == "postgresql://sluice@db/sluice");
}

TEST_CASE("an unset variable is an error naming it") {
  const auto s = substitute_env("${MISSING}", env, false);
  REQUIRE(s.errors.size() == 1);
  CHECK(s.errors[0].find("environment variable MISSING is not set") != std::string::npos);
}

TEST_CASE("a set but empty variable is the empty string") {
  const auto s = substitute_env("a${EMPTY}b", env, false);
  CHECK(s.errors.empty());
  CHECK(s.text == "ab");
}

TEST_CASE("${X:-default} falls back when X is unset or empty") {
  CHECK(substitute_env("${MISSING:-dflt}", env, false).text == "dflt");
  CHECK(substitute_env("${EMPTY:-dflt}", env, false).text == "dflt");
  CHECK(substitute_env("${USER:-dflt}", env, false).text == "sluice");
  CHECK(substitute_env("${MISSING:-}", env, false).text == "");
  CHECK(substitute_env("${MISSING:-127.0.0.1:9092}", env, false).text == "127.0.0.1:9092");
}

TEST_CASE("substituted text is not scanned again") {
  CHECK(substitute_env("${PW}", env, false).text == "p${NOT_AGAIN}");
}

TEST_CASE("$${ is a literal ${ and a lone $ is kept") {
  CHECK(substitute_env("$${USER} costs $5", env, false).text == "${USER} costs $5");
}

TEST_CASE("malformed references are errors") {
  CHECK_FALSE(substitute_env("${USER", env, false).errors.empty());
  CHECK_FALSE(substitute_env("${}", env, false).errors.empty());
  CHECK_FALSE(substitute_env("${1X}", env, false).errors.empty());
  CHECK_FALSE(substitute_env("${A B}", env, false).errors.empty());
}

TEST_CASE("routing placeholders are reserved names, never read from the environment") {
  const auto table_env = env_of({{"table", "from-env"}, {"schema", "from-env"}});
  const auto kept = substitute_env("${schema}.${table}", table_env, true);
  CHECK(kept.errors.empty());
  CHECK(kept.text == "${schema}.${table}");
  const auto rejected = substitute_env("x_${topic}", table_env, false);
  REQUIRE(rejected.errors.size() == 1);
  CHECK(rejected.errors[0].find("routing placeholder") != std::string::npos);
  CHECK_FALSE(substitute_env("${table:-x}", table_env, true).errors.empty());
}
