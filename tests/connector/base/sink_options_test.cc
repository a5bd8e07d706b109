#include "connector/base/sink_options.h"

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <string_view>

#include "connector/config/config_loader.h"

// The sink's options from the configuration (connector/base/sink_options.h).

namespace sluice {
namespace {

config loaded(const std::string& extra,
              const std::string& target = "postgres.dsn: \"postgresql://u@db/r\"\n") {
  const std::string yaml =
      "name: n\nkafka: {bootstrap.servers: \"127.0.0.1:9092\"}\ntopics: [a]\n" + target + extra;
  const load_result r =
      load_config(yaml, [](std::string_view) -> std::optional<std::string> { return {}; });
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  return *r;
}

}  // namespace

TEST_CASE("errors.retry.max counts retries after the first attempt: 0 is no retry") {
  CHECK(make_retry_policy(loaded("errors.retry.max: 0\n")).statement_attempts == 1);
  CHECK(make_retry_policy(loaded("errors.retry.max: 3\n")).statement_attempts == 4);
  CHECK(make_retry_policy(loaded("")).statement_attempts == 11);  // the default, 10 retries
}

TEST_CASE("a mariadb config fills the sessions, retries and applier from mariadb keys") {
  const config c = loaded(
      "mariadb: {state.database: st, statement.timeout: 7s, lock.timeout: 6s,\n"
      "  ddl.lock.timeout: 5s, ddl.statement.timeout: 4s, idle.in.transaction.timeout: 3m,\n"
      "  round.trip.timeout: 2m, connect.timeout: 9s, retry.timeout: 1h}\n"
      "postgres: {statement.timeout: 1s, lock.timeout: 1s, ddl.lock.timeout: 1s}\n",
      "mariadb.dsn: \"mariadb://u:p@db:3306/r\"\n");
  const session_options s = make_session_options(c);
  CHECK(s.dsn == "mariadb://u:p@db:3306/r");
  CHECK(s.state_schema == "st");
  CHECK(s.statement_timeout == std::chrono::seconds(7));
  CHECK(s.lock_timeout == std::chrono::seconds(6));
  CHECK(s.idle_in_transaction_timeout == std::chrono::minutes(3));
  CHECK(s.round_trip_timeout == std::chrono::minutes(2));
  CHECK(s.connect_timeout == std::chrono::seconds(9));
  CHECK(make_retry_policy(c).outage_limit == std::chrono::hours(1));
  const apply_options a = make_applier_options(c);
  CHECK(a.state_schema == "st");
  CHECK(a.ddl_lock_timeout == std::chrono::seconds(5));
  CHECK(a.ddl_statement_timeout == std::chrono::seconds(4));
}

TEST_CASE("a postgres config fills the sessions from postgres keys, keepalives included") {
  const config c = loaded("postgres: {state.schema: pst, keepalives.count: 7, lock.timeout: 8s}\n");
  const session_options s = make_session_options(c);
  CHECK(s.dsn == "postgresql://u@db/r");
  CHECK(s.state_schema == "pst");
  CHECK(s.keepalives_count == 7);
  CHECK(s.lock_timeout == std::chrono::seconds(8));
  CHECK(make_applier_options(c).state_schema == "pst");
}

}  // namespace sluice
