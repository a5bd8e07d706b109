#include "sinks/target_factory.h"

#include <doctest/doctest.h>

#include <memory>

namespace sluice {
namespace {

session_options unreachable_settings() {
  session_options o;
  o.dsn = "host=203.0.113.1 dbname=nowhere";  // TEST-NET-3: nothing answers there
  return o;
}

}  // namespace

TEST_CASE("the postgres target hands out a session and its roles without touching the server") {
  const auto target = make_target(target_kind::postgres, unreachable_settings());
  REQUIRE(target != nullptr);
  const auto session = target->open("test", retry_policy::bounded());
  REQUIRE(session != nullptr);
  // Each role is made on the session, no I/O: a server that never answers is never asked.
  apply_options options;
  options.connector = "c";
  CHECK(session->make_applier(options) != nullptr);
  CHECK(session->make_owner("c") != nullptr);
  CHECK(session->make_reader("c") != nullptr);
  CHECK(session->make_janitor() != nullptr);
  CHECK(session->make_key_reader() != nullptr);
  CHECK(session->make_offset_admin("c") != nullptr);
  CHECK(session->make_dead_letter_store("c") != nullptr);
  CHECK(target->make_schema_store() != nullptr);
}

TEST_CASE("a target whose DSN does not parse is a configuration error the caller redacts") {
  session_options settings;
  settings.dsn = "not a dsn";
  const auto target = make_target(target_kind::postgres, settings);
  sink::check_request request;
  request.shown_target = "the target";
  const auto findings = target->check(request);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].area == "postgres");
  CHECK(findings[0].subject == "the target");
  CHECK(findings[0].status == sink::check_status::config_error);
  CHECK(findings[0].error_text);
  CHECK_FALSE(findings[0].detail.empty());
}

}  // namespace sluice
