#include "sinks/postgres/session/session_options.h"

#include <doctest/doctest.h>

#include <stdexcept>

#include "sinks/retry_policy.h"

namespace sluice {
namespace {

bool has(const std::string& conninfo, const std::string& setting) {
  return (" " + conninfo + " ").find(" " + setting + " ") != std::string::npos;
}

TEST_CASE("every session connects with timeouts, keepalives and its role's application name") {
  session_options o;
  o.dsn = "postgresql://sluice@127.0.0.1:5432/replica";
  const session_conninfo c = make_session_conninfo(o, "lane-0");
  CHECK(has(c.conninfo, "connect_timeout='10'"));
  CHECK(has(c.conninfo, "keepalives='1'"));
  CHECK(has(c.conninfo, "keepalives_idle='10'"));
  CHECK(has(c.conninfo, "keepalives_interval='5'"));
  CHECK(has(c.conninfo, "keepalives_count='3'"));
  CHECK(has(c.conninfo, "tcp_user_timeout='30000'"));
  CHECK(has(c.conninfo, "application_name='sluice:lane-0'"));
  CHECK(has(c.conninfo, "host='127.0.0.1'"));
  CHECK(has(c.conninfo, "dbname='replica'"));
  CHECK(c.limits_sql ==
        "SET statement_timeout = 60000; SET lock_timeout = 30000; "
        "SET idle_in_transaction_session_timeout = 120000; ");
}

TEST_CASE("what the DSN sets wins over sluice's defaults") {
  session_options o;
  o.dsn =
      "host=db user=u connect_timeout=3 application_name=mine "
      "options='-c statement_timeout=5s'";
  const session_conninfo c = make_session_conninfo(o, "lane-0");
  CHECK(has(c.conninfo, "connect_timeout='3'"));
  CHECK(has(c.conninfo, "application_name='mine'"));
  CHECK(c.conninfo.find("connect_timeout='10'") == std::string::npos);
  CHECK(c.limits_sql.find("statement_timeout") == std::string::npos);
  CHECK(c.limits_sql.find("lock_timeout = 30000") != std::string::npos);
}

TEST_CASE("0 leaves a limit out, and a connect timeout under 2 s is 2 s, as libpq counts it") {
  session_options o;
  o.dsn = "host=db";
  o.keepalives_idle = std::chrono::milliseconds(0);
  o.tcp_user_timeout = std::chrono::milliseconds(0);
  o.statement_timeout = std::chrono::milliseconds(0);
  o.connect_timeout = std::chrono::milliseconds(500);
  const session_conninfo c = make_session_conninfo(o, "");
  CHECK(c.conninfo.find("keepalives") == std::string::npos);
  CHECK(c.conninfo.find("tcp_user_timeout") == std::string::npos);
  CHECK(has(c.conninfo, "connect_timeout='2'"));
  CHECK(has(c.conninfo, "application_name='sluice'"));
  CHECK(c.limits_sql.find("SET statement_timeout = 0;") != std::string::npos);
}

TEST_CASE("a DSN that does not parse is an error that does not repeat the DSN") {
  session_options o;
  o.dsn = "host=db password=hunter2 nonsense";
  try {
    make_session_conninfo(o, "x");
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("hunter2") == std::string::npos);
  }
}

TEST_CASE("values with quotes and backslashes reach libpq intact") {
  session_options o;
  o.dsn = "host=db password='it\\'s\\\\x'";
  const session_conninfo c = make_session_conninfo(o, "x");
  CHECK(has(c.conninfo, "password='it\\'s\\\\x'"));
}

TEST_CASE("backoff grows exponentially to its cap, half of it random") {
  retry_policy p;
  p.backoff_initial = std::chrono::milliseconds(100);
  p.backoff_max = std::chrono::milliseconds(1000);
  for (int i = 0; i < 50; ++i) {
    const auto first = p.backoff(1).count();
    CHECK(first >= 50);
    CHECK(first <= 100);
    const auto third = p.backoff(3).count();
    CHECK(third >= 200);
    CHECK(third <= 400);
    const auto late = p.backoff(30).count();
    CHECK(late >= 500);
    CHECK(late <= 1000);
  }
}

TEST_CASE("the connector waits outages out, the commands give up soon") {
  CHECK(retry_policy::waiting_out().outage_limit.count() == 0);
  const retry_policy b = retry_policy::bounded();
  CHECK(b.outage_limit.count() > 0);
  CHECK(b.outage_limit <= std::chrono::seconds(10));
  CHECK(b.statement_attempts <= 3);
}

}  // namespace
}  // namespace sluice
