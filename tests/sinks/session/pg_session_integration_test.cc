// pg_session against the test PostgreSQL (CTest "sinks.batch_applier", label integration):
// its settings, its retry policies, the outage reports its observer hears, the round-trip
// deadline and the raw libpq handle.
#include "sinks/postgres/session/pg_session.h"

#include <doctest/doctest.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include <pqxx/nontransaction>
#include <pqxx/transaction>

#include "tests/sinks/pg_test_env.h"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using testing::test_dsn;
using testing::unique_name;
using clock_type = std::chrono::steady_clock;

struct recording_observer : session_observer {
  std::mutex mutex;
  std::vector<std::string> heard;
  void error(const pg_error_class& e) override { add("error " + std::string(to_string(e.action))); }
  void unreachable(const std::string& role, const pg_error_class&) override {
    add("unreachable " + role);
  }
  void reachable(const std::string& role) override { add("reachable " + role); }
  void withdrawn(const std::string& role) override { add("withdrawn " + role); }
  void reconnected(const std::string& role) override { add("reconnected " + role); }
  void stalled(const std::string& role, const pg_error_class& e) override {
    add("stalled " + role + " " + e.sqlstate);
  }
  void stall_ended(const std::string& role) override { add("stall ended " + role); }
  void add(std::string s) {
    std::lock_guard lock(mutex);
    heard.push_back(std::move(s));
  }
  size_t count(const std::string& s) {
    std::lock_guard lock(mutex);
    return static_cast<size_t>(std::count(heard.begin(), heard.end(), s));
  }
};

session_options options_for(const std::string& dsn) {
  session_options o;
  o.dsn = dsn;
  o.state_schema = unique_name("session_state");
  return o;
}

retry_policy quick(std::chrono::milliseconds outage_limit) {
  retry_policy p;
  p.outage_limit = outage_limit;
  p.backoff_initial = 20ms;
  p.backoff_max = 200ms;
  return p;
}

// A DSN for a loopback port nothing listens on.
std::string closed_port_dsn() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return "postgresql://sluice@127.0.0.1:" + std::to_string(ntohs(a.sin_port)) + "/replica";
}

std::string setting(pqxx::connection& conn, const std::string& name) {
  pqxx::nontransaction tx(conn);
  return tx.exec_params1("SELECT setting FROM pg_settings WHERE name = $1", name)[0].c_str();
}

TEST_CASE("a session sets its timeouts, keepalives and application name, and migrates its state") {
  const session_options o = options_for(test_dsn());
  pg_session session(o, quick(5s), "lane-7");
  session.run([&](pqxx::connection& conn) {
    CHECK(setting(conn, "statement_timeout") == "60000");
    CHECK(setting(conn, "lock_timeout") == "30000");
    CHECK(setting(conn, "idle_in_transaction_session_timeout") == "120000");
    CHECK(setting(conn, "application_name") == "sluice:lane-7");
    pqxx::nontransaction tx(conn);
    CHECK(tx.exec_params1("SELECT count(*) FROM information_schema.tables WHERE table_schema = $1 "
                          "AND table_name = 'offsets'",
                          o.state_schema)[0]
              .as<int>() == 1);
    tx.exec("DROP SCHEMA " + tx.quote_name(o.state_schema) + " CASCADE");
    return 0;
  });
}

TEST_CASE("raw() is the session's own libpq connection") {
  session_options o = options_for(test_dsn());
  o.migrate = false;
  pg_session session(o, quick(5s), "raw");
  const int pid = session.run([](pqxx::connection& conn) {
    return pqxx::nontransaction(conn).exec1("SELECT pg_backend_pid()")[0].as<int>();
  });
  CHECK(PQbackendPID(session.raw()) == pid);
}

TEST_CASE("a login the server refuses fails at once, saying why, and is not retried") {
  std::string dsn = test_dsn();
  const std::string role = unique_name("nosuch");
  dsn.replace(dsn.find("sluice@"), 7, role + "@");
  recording_observer seen;
  session_options o = options_for(dsn);
  pg_session session(o, retry_policy::waiting_out(), "lane-0", &seen);
  const auto start = clock_type::now();
  try {
    session.run([](pqxx::connection&) { return 0; });
    FAIL("connected");
  } catch (const session_error& e) {
    CHECK(e.error().action == pg_error_action::refused);
    CHECK(std::string(e.what()).find("refused the login") != std::string::npos);
    CHECK(std::string(e.what()).find(role) != std::string::npos);
  }
  CHECK(clock_type::now() - start < 5s);
  CHECK(seen.count("unreachable lane-0") == 0);  // not an outage: nothing to wait out
}

TEST_CASE("an unreachable server is retried until the policy's limit, then given up saying so") {
  recording_observer seen;
  pg_session session(options_for(closed_port_dsn()), quick(1500ms), "owner", &seen);
  const auto start = clock_type::now();
  try {
    session.run([](pqxx::connection&) { return 0; });
    FAIL("connected");
  } catch (const session_error& e) {
    CHECK(e.error().action == pg_error_action::reconnect);
    CHECK(std::string(e.what()).find("postgres.retry.timeout") != std::string::npos);
  }
  const auto took = clock_type::now() - start;
  CHECK(took >= 1500ms);
  CHECK(took < 10s);
  CHECK(seen.count("unreachable owner") == 1);  // once per outage, however many attempts
  CHECK(seen.count("error reconnect") > 2);
}

TEST_CASE("an outage waited out forever stops when its user no longer wants it") {
  recording_observer seen;
  pg_session session(options_for(closed_port_dsn()), quick(0ms), "lane-1", &seen);
  const auto until = clock_type::now() + 800ms;
  const auto out = session.run_while([&] { return clock_type::now() < until; },
                                     [](pqxx::connection&) { return 1; });
  CHECK(!out);
  CHECK(clock_type::now() - until < 1s);
  CHECK(seen.count("unreachable lane-1") == 1);
  CHECK(seen.count("withdrawn lane-1") == 1);
}

TEST_CASE("a lost connection is opened again, and the observer hears the outage end") {
  recording_observer seen;
  session_options o = options_for(test_dsn());
  o.migrate = false;
  pg_session session(o, quick(10s), "lane-2", &seen);
  const int first = session.run([](pqxx::connection& conn) {
    return pqxx::nontransaction(conn).exec1("SELECT pg_backend_pid()")[0].as<int>();
  });
  {
    pqxx::connection killer(test_dsn());
    pqxx::nontransaction(killer).exec_params("SELECT pg_terminate_backend($1)", first);
  }
  std::this_thread::sleep_for(100ms);
  const int second = session.run([](pqxx::connection& conn) {
    return pqxx::nontransaction(conn).exec1("SELECT pg_backend_pid()")[0].as<int>();
  });
  CHECK(second != first);
  CHECK(seen.count("unreachable lane-2") == 1);
  CHECK(seen.count("reconnected lane-2") == 1);
  CHECK(seen.count("reachable lane-2") == 1);
}

// A statement cancelled by its statement_timeout (57014) until `failures` attempts failed.
int cancelled_until(pqxx::connection& conn, int& attempts, int failures) {
  pqxx::work tx(conn);
  if (++attempts <= failures) {
    tx.exec("SET LOCAL statement_timeout = 1");
    tx.exec("SELECT pg_sleep(1)");
  }
  return attempts;
}

TEST_CASE("a transient error past the quiet attempts stalls the session, which goes on") {
  recording_observer seen;
  session_options o = options_for(test_dsn());
  o.migrate = false;
  retry_policy p = quick(10s);
  p.statement_attempts = 2;  // one quiet retry, then stalled: on at the backoff's pace
  pg_session session(o, p, "lane-3", &seen);
  int attempts = 0;
  CHECK(session.run([&](pqxx::connection& c) { return cancelled_until(c, attempts, 6); }) == 7);
  CHECK(seen.count("error retry") == 6);
  // Told with each attempt past the budget (each may bring a new reason), then the end once.
  CHECK(seen.count("stalled lane-3 57014") == 5);
  CHECK(seen.count("stall ended lane-3") == 1);
  CHECK(!session.stalled());

  // A command a person waits for gives up instead, and is not stalled.
  p.stall_after_attempts = false;
  pg_session command(o, p, "command", &seen);
  attempts = 0;
  CHECK_THROWS(command.run([&](pqxx::connection& c) { return cancelled_until(c, attempts, 6); }));
  CHECK(attempts == 2);
  CHECK(seen.count("stalled command 57014") == 0);
}

TEST_CASE("a stalled session abandoned by its user tells the stall's end") {
  recording_observer seen;
  session_options o = options_for(test_dsn());
  o.migrate = false;
  retry_policy p = quick(10s);
  p.statement_attempts = 1;  // no quiet retry: stalled at the first failure
  pg_session session(o, p, "lane-4", &seen);
  int attempts = 0;
  const auto out =
      session.run_while([&] { return attempts < 3; },
                        [&](pqxx::connection& c) { return cancelled_until(c, attempts, 100); });
  CHECK(!out);
  CHECK(seen.count("stalled lane-4 57014") == 3);
  CHECK(seen.count("stall ended lane-4") == 1);
}

TEST_CASE("the round-trip deadline cuts a call that hears nothing from the server") {
  session_options o = options_for(test_dsn());
  o.migrate = false;
  o.statement_timeout = 0ms;  // the server would wait as long as asked
  o.round_trip_timeout = 1s;
  pg_session session(o, quick(10s), "stalled");
  pqxx::connection& conn = session.connection();
  const auto start = clock_type::now();
  {
    pg_session::round_trip guard(session);
    CHECK_THROWS_AS(pqxx::nontransaction(conn).exec("SELECT pg_sleep(20)"),
                    pqxx::broken_connection);
  }
  const auto took = clock_type::now() - start;
  CHECK(took >= 1s);
  CHECK(took < 5s);
  // Off the clock (producing dead letters to Kafka inside a transaction) nothing is cut.
  session.drop();
  pqxx::connection& again = session.connection();
  pg_session::round_trip guard(session);
  session.off_clock(true);
  CHECK_NOTHROW(pqxx::nontransaction(again).exec("SELECT pg_sleep(2)"));
  session.off_clock(false);
}

}  // namespace
}  // namespace sluice
