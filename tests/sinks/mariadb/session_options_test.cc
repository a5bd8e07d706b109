#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "sinks/mariadb/session/session_options.h"

namespace sluice {
namespace {

using namespace std::chrono_literals;

session_options options() {
  session_options o;
  o.dsn = "mariadb://u:secret@db.example:3307/replica";
  return o;
}

TEST_CASE("mariadb session settings: strict, UTC, READ COMMITTED and the limits in order") {
  session_options o = options();
  o.statement_timeout = 60'500ms;
  o.lock_timeout = 1'200ms;
  o.idle_in_transaction_timeout = 120s;
  o.round_trip_timeout = 90s;
  o.connect_timeout = 7s;
  const mdb::connect_settings s = mdb::make_connect_settings(o, "lane-3");
  CHECK(s.program == "sluice:lane-3");
  CHECK(s.target.host == "db.example");
  CHECK(s.target.port == 3307);
  CHECK(s.connect_timeout == 7s);
  CHECK(s.io_timeout == 90s);
  REQUIRE(s.init.size() == 7);
  CHECK(s.init[0] ==
        "SET SESSION sql_mode = 'STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ZERO_DATE,"
        "NO_ZERO_IN_DATE,NO_ENGINE_SUBSTITUTION'");
  CHECK(s.init[1] == "SET SESSION time_zone = '+00:00'");
  CHECK(s.init[2] == "SET SESSION max_statement_time = 60.500");
  // Whole seconds, rounded up: 1.2 s waits 2 s, never "no wait".
  CHECK(s.init[3] == "SET SESSION innodb_lock_wait_timeout = 2");
  CHECK(s.init[4] == "SET SESSION lock_wait_timeout = 2");
  CHECK(s.init[5] == "SET SESSION idle_transaction_timeout = 120");
  CHECK(s.init[6] == "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
}

TEST_CASE("mariadb session settings: a limit of 0 is none, the lock waits the server's maximum") {
  session_options o = options();
  o.statement_timeout = 0ms;
  o.lock_timeout = 0ms;
  o.idle_in_transaction_timeout = 0ms;
  o.round_trip_timeout = 0ms;
  const mdb::connect_settings s = mdb::make_connect_settings(o, "");
  CHECK(s.program == "sluice");
  CHECK(s.io_timeout == 0ms);
  REQUIRE(s.init.size() == 7);
  CHECK(s.init[2] == "SET SESSION max_statement_time = 0.000");
  // MariaDB's own 0 would mean "do not wait at all".
  CHECK(s.init[3] == "SET SESSION innodb_lock_wait_timeout = 1073741824");
  CHECK(s.init[4] == "SET SESSION lock_wait_timeout = 31536000");
  CHECK(s.init[5] == "SET SESSION idle_transaction_timeout = 0");
  // Under a second: a second.
  o.statement_timeout = 250ms;
  CHECK(mdb::make_connect_settings(o, "x").init[2] == "SET SESSION max_statement_time = 0.250");
}

TEST_CASE("mariadb session settings: MySQL 8's init, max_execution_time and no idle timeout") {
  session_options o = options();
  o.statement_timeout = 60'500ms;
  o.lock_timeout = 1'200ms;
  o.idle_in_transaction_timeout = 120s;
  const mdb::connect_settings s = mdb::make_connect_settings(o, "lane-3");
  // The connection runs init_mysql when the server's version says MySQL: the text of
  // session_init for that dialect (not run against a MySQL server here).
  CHECK(s.init_mysql == mdb::session_init(o, mdb::sql_dialect::mysql8()));
  CHECK(s.init == mdb::session_init(o, mdb::sql_dialect::mariadb()));
  REQUIRE(s.init_mysql.size() == 6);
  CHECK(s.init_mysql[0] == s.init[0]);  // no MariaDB-only sql_mode flag
  CHECK(s.init_mysql[1] == "SET SESSION time_zone = '+00:00'");
  // Milliseconds, SELECTs only on MySQL.
  CHECK(s.init_mysql[2] == "SET SESSION max_execution_time = 60500");
  CHECK(s.init_mysql[3] == "SET SESSION innodb_lock_wait_timeout = 2");
  CHECK(s.init_mysql[4] == "SET SESSION lock_wait_timeout = 2");
  CHECK(s.init_mysql[5] == "SET SESSION transaction_isolation = 'READ-COMMITTED'");
  for (const std::string& sql : s.init_mysql) {
    CHECK(sql.find("idle_transaction_timeout") == std::string::npos);
    CHECK(sql.find("SET SESSION wait_timeout") == std::string::npos);
  }
  o.statement_timeout = 0ms;
  o.lock_timeout = 0ms;
  const auto none = mdb::session_init(o, mdb::sql_dialect::mysql8());
  CHECK(none[2] == "SET SESSION max_execution_time = 0");
  CHECK(none[3] == "SET SESSION innodb_lock_wait_timeout = 1073741824");
  CHECK(none[4] == "SET SESSION lock_wait_timeout = 31536000");
}

TEST_CASE("mariadb session settings: a DSN that does not parse is refused without its password") {
  session_options o = options();
  o.dsn = "mariadb://u:hunter2@db.example:notaport/replica";
  try {
    mdb::make_connect_settings(o, "lane");
    FAIL("a bad port must be refused");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("mariadb.dsn") != std::string::npos);
    CHECK(what.find("hunter2") == std::string::npos);
  }
  o.dsn = "postgresql://u@h/db";
  CHECK_THROWS_AS(mdb::make_connect_settings(o, "lane"), std::invalid_argument);
}

}  // namespace
}  // namespace sluice
