#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sinks/mariadb/session/mdb_session.h"
#include "sinks/mariadb/session/mdb_transaction.h"
#include "sinks/mariadb/sql/mdb_identifier.h"
#include "tests/sinks/mariadb/mdb_test_env.h"

namespace sluice {
namespace {

using namespace std::chrono_literals;

// What the sessions told: counts per verb, the last error.
struct recorder : session_observer {
  int errors = 0, unreachables = 0, reachables = 0, reconnects = 0, stalls = 0;
  std::vector<std::string> messages;
  void error(const target_error_class& e) override {
    ++errors;
    messages.push_back(e.message);
  }
  void unreachable(const std::string&, const target_error_class&) override { ++unreachables; }
  void reachable(const std::string&) override { ++reachables; }
  void reconnected(const std::string&) override { ++reconnects; }
  void stalled(const std::string&, const target_error_class&) override { ++stalls; }
};

session_options test_options() {
  session_options o;
  o.dsn = testing::mariadb_dsn();
  o.migrate = false;
  return o;
}

retry_policy quick() {
  retry_policy p;
  p.backoff_initial = 10ms;
  p.backoff_max = 50ms;
  p.statement_attempts = 5;
  p.stall_after_attempts = false;
  return p;
}

// The DSN with its user's password (or its port) changed.
std::string with_password(std::string dsn, const std::string& password) {
  const size_t colon = dsn.find(':', dsn.find("//") + 2);
  const size_t at = dsn.find('@');
  return dsn.replace(colon + 1, at - colon - 1, password);
}
std::string with_port(std::string dsn, const std::string& port) {
  const size_t at = dsn.find('@');
  const size_t colon = dsn.find(':', at);
  const size_t slash = dsn.find('/', colon);
  return dsn.replace(colon + 1, slash - colon - 1, port);
}

TEST_CASE(
    "mariadb session: strict sql_mode, UTC, READ COMMITTED and the limits on every connection") {
  session_options o = test_options();
  o.statement_timeout = 2'500ms;
  o.lock_timeout = 3s;
  o.idle_in_transaction_timeout = 40s;
  mdb::mdb_session s(o, quick(), "settings");
  const auto r = s.run([](mdb::connection& c) {
    return c.query(
        "SELECT @@session.sql_mode, @@session.time_zone, @@session.tx_isolation, "
        "@@session.max_statement_time, @@session.innodb_lock_wait_timeout, "
        "@@session.lock_wait_timeout, @@session.idle_transaction_timeout");
  });
  // The server lists the modes in its own order: each one, and nothing else.
  std::vector<std::string> modes;
  std::istringstream listed(r.at(0, 0).value_or(""));
  for (std::string m; std::getline(listed, m, ',');)
    modes.push_back(m);
  std::sort(modes.begin(), modes.end());
  CHECK(modes == std::vector<std::string>{"ERROR_FOR_DIVISION_BY_ZERO", "NO_ENGINE_SUBSTITUTION",
                                          "NO_ZERO_DATE", "NO_ZERO_IN_DATE", "STRICT_ALL_TABLES"});
  CHECK(r.at(0, 1) == "+00:00");
  CHECK(r.at(0, 2) == "READ-COMMITTED");
  CHECK(r.at(0, 3) == "2.500000");
  CHECK(r.at(0, 4) == "3");
  CHECK(r.at(0, 5) == "3");
  CHECK(r.at(0, 6) == "40");
  CHECK(s.server_version() >= 100600);
  CHECK(s.server_version_text().find("MariaDB") != std::string::npos);
  CHECK(s.max_allowed_packet() >= 1024 * 1024);

  // Strict: a bad value is an error (1366, rejected), not a warning and a zero.
  const std::string table = mdb::quote_identifier(testing::unique_name("strict"));
  s.run([&](mdb::connection& c) { return c.exec("CREATE TABLE " + table + " (n int)"); });
  try {
    s.run([&](mdb::connection& c) { return c.exec("INSERT INTO " + table + " VALUES ('abc')"); });
    FAIL("'abc' into an int column must fail");
  } catch (const mdb::mdb_error& e) {
    CHECK(e.code() == 1366);
    CHECK(s.last_error().action == target_error_action::reject);
  }
  CHECK(s.run([&](mdb::connection& c) {
    return c.query("SELECT count(*) FROM " + table).at(0, 0);
  }) == "0");
}

TEST_CASE("mariadb session: a body that loses a deadlock (1213) is run again and succeeds") {
  const std::string table = mdb::quote_identifier(testing::unique_name("deadlock"));
  const std::string heavy = mdb::quote_identifier(testing::unique_name("heavy"));
  mdb::connection other(testing::mariadb_settings());
  other.exec("CREATE TABLE " + table + " (k int PRIMARY KEY, v int) ENGINE=InnoDB");
  other.exec("INSERT INTO " + table + " VALUES (1, 0), (2, 0)");
  other.exec("CREATE TABLE " + heavy + " (k int PRIMARY KEY) ENGINE=InnoDB");
  other.exec("INSERT INTO " + heavy + " SELECT seq FROM seq_1_to_200");

  // The other transaction weighs more (200 rows changed): InnoDB rolls back the session's.
  other.exec("BEGIN");
  other.exec("UPDATE " + heavy + " SET k = k + 1000");
  other.exec("UPDATE " + table + " SET v = v + 10 WHERE k = 2");

  recorder seen;
  mdb::mdb_session s(test_options(), quick(), "deadlock", &seen);
  std::thread blocked;
  std::atomic<unsigned> other_failed{0};
  int attempts = 0;
  s.run([&](mdb::connection& c) {
    ++attempts;
    mdb::transaction tx(c);
    c.exec("UPDATE " + table + " SET v = v + 1 WHERE k = 1");
    if (attempts == 1) {
      // The other now waits for row 1, which this transaction holds…
      blocked = std::thread([&] {
        try {
          other.exec("UPDATE " + table + " SET v = v + 10 WHERE k = 1");
          other.exec("COMMIT");
        } catch (const mdb::mdb_error& e) {
          other_failed = e.code();
        }
      });
      std::this_thread::sleep_for(300ms);
    }
    // …and this one for row 2: a cycle.
    c.exec("UPDATE " + table + " SET v = v + 1 WHERE k = 2");
    tx.commit();
    return 0;
  });
  blocked.join();
  REQUIRE(other_failed == 0);
  CHECK(attempts == 2);
  REQUIRE(seen.errors == 1);
  CHECK(seen.messages[0].starts_with("1213:"));
  CHECK(seen.unreachables == 0);
  const auto r = other.query("SELECT v FROM " + table + " ORDER BY k");
  CHECK(r.at(0, 0) == "11");
  CHECK(r.at(1, 0) == "11");
}

TEST_CASE("mariadb session: a lock wait timeout (1205) leaves no transaction open for the retry") {
  const std::string table = mdb::quote_identifier(testing::unique_name("lockwait"));
  mdb::connection other(testing::mariadb_settings());
  other.exec("CREATE TABLE " + table + " (k int PRIMARY KEY, v int) ENGINE=InnoDB");
  other.exec("INSERT INTO " + table + " VALUES (1, 0), (2, 0)");
  other.exec("BEGIN");
  other.exec("UPDATE " + table + " SET v = 5 WHERE k = 2");

  session_options o = test_options();
  o.lock_timeout = 1s;
  mdb::mdb_session s(o, quick(), "lockwait");
  int attempts = 0;
  std::string connection_id;
  s.run([&](mdb::connection& c) {
    ++attempts;
    c.exec("BEGIN");
    // Row 1 is written before the wait; 1205 rolls back the waiting statement alone.
    c.exec("UPDATE " + table + " SET v = v + 1 WHERE k = 1");
    if (attempts == 1) {
      connection_id = c.query("SELECT CONNECTION_ID()").at(0, 0).value();
      c.exec("UPDATE " + table + " SET v = v + 1 WHERE k = 2");  // waits 1 s, 1205
    }
    c.exec("COMMIT");
    return 0;
  });
  other.exec("COMMIT");
  CHECK(attempts == 2);
  CHECK(s.last_error().message.starts_with("1205:"));
  // Had the first attempt's row 1 stayed in an open transaction, the retry would have added
  // to it and committed both: 2. The session rolled it back: 1.
  CHECK(other.query("SELECT v FROM " + table + " WHERE k = 1").at(0, 0) == "1");
  // Same connection: rolled back, not dropped.
  CHECK(s.run([](mdb::connection& c) { return c.query("SELECT CONNECTION_ID()").at(0, 0); }) ==
        connection_id);
}

TEST_CASE("mariadb session: a connection killed mid-session is reopened, the observer told") {
  recorder seen;
  mdb::mdb_session s(test_options(), quick(), "killed", &seen);
  const auto id = [](mdb::connection& c) {
    return c.query("SELECT CONNECTION_ID()").at(0, 0).value();
  };
  const std::string first = s.run(id);
  CHECK(seen.reconnects == 0);
  mdb::connection killer(testing::mariadb_settings());
  killer.exec("KILL " + first);
  const std::string second = s.run(id);
  CHECK(second != first);
  CHECK(seen.reconnects == 1);
  CHECK(seen.unreachables == 1);
  CHECK(seen.reachables == 1);
  CHECK_FALSE(s.down());
}

TEST_CASE("mariadb session: a COMMIT whose connection is lost is in doubt") {
  const std::string table = mdb::quote_identifier(testing::unique_name("indoubt"));
  mdb::connection other(testing::mariadb_settings());
  other.exec("CREATE TABLE " + table + " (k int PRIMARY KEY)");
  mdb::mdb_session s(test_options(), quick(), "indoubt");
  bool seen_in_doubt = false;
  int attempts = 0;
  s.run_attempts(
      {},
      [&](mdb::connection& c) -> std::optional<int> {
        if (++attempts > 1) return 0;
        mdb::transaction tx(c);
        c.exec("INSERT INTO " + table + " VALUES (1)");
        other.exec("KILL " + c.query("SELECT CONNECTION_ID()").at(0, 0).value());
        tx.commit();
        return 1;
      },
      [&](const target_error_class& e) {
        seen_in_doubt = e.action == target_error_action::in_doubt;
        return mdb::mdb_session::after_failure::again;
      });
  CHECK(seen_in_doubt);
  CHECK(attempts == 2);
}

TEST_CASE("mariadb session: an unreachable server is given up after the policy's outage limit") {
  recorder seen;
  session_options o = test_options();
  o.dsn = with_port(o.dsn, "1");
  retry_policy p = quick();
  p.outage_limit = 500ms;
  mdb::mdb_session s(o, p, "unreachable", &seen);
  try {
    s.run([](mdb::connection& c) { return c.exec("SELECT 1"); });
    FAIL("port 1 must not answer");
  } catch (const session_error& e) {
    CHECK(e.error().action == target_error_action::reconnect);
    CHECK(std::string(e.what()).find("unreachable") != std::string::npos);
  }
  CHECK(seen.unreachables == 1);
  CHECK(seen.errors >= 2);
  CHECK(seen.reachables == 0);
}

TEST_CASE("mariadb session: a login refused stops at once") {
  recorder seen;
  session_options o = test_options();
  o.dsn = with_password(o.dsn, "not-the-password");
  mdb::mdb_session s(o, quick(), "refused", &seen);
  try {
    s.run([](mdb::connection& c) { return c.exec("SELECT 1"); });
    FAIL("a wrong password must be refused");
  } catch (const session_error& e) {
    CHECK(e.error().action == target_error_action::refused);
    CHECK(e.error().message.starts_with("1045:"));
    CHECK(std::string(e.what()).find("not-the-password") == std::string::npos);
  }
  CHECK(seen.errors == 1);
  CHECK(seen.unreachables == 0);
}

TEST_CASE("mariadb session: the state database is migrated once per session") {
  session_options o = test_options();
  o.migrate = true;
  o.state_schema = testing::unique_name("sluice_state");
  mdb::mdb_session s(o, quick(), "migrate");
  CHECK(s.run([&](mdb::connection& c) {
    return c.query("SELECT count(*) FROM " + s.schema().table("lock_buckets")).at(0, 0);
  }) == "4096");
  // Dropped behind the session's back: not migrated again on the same session.
  mdb::connection other(testing::mariadb_settings());
  other.exec("DROP DATABASE " + mdb::quote_identifier(o.state_schema));
  CHECK_THROWS_AS(s.run([&](mdb::connection& c) {
    return c.query("SELECT 1 FROM " + s.schema().table("lock_buckets"));
  }),
                  mdb::mdb_error);
}

}  // namespace
}  // namespace sluice
