#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sinks/mariadb/sql/mdb_identifier.h"
#include "tests/sinks/mariadb/mdb_test_env.h"

namespace sluice {
namespace {

using mdb::param;

TEST_CASE("mariadb connection: values go as data, bulk rows in one execution, found rows") {
  mdb::connection c(testing::mariadb_settings());
  CHECK(c.server_version() >= 100600);
  const std::string table = mdb::quote_identifier(testing::unique_name("conn`t"));
  c.exec("CREATE TABLE " + table +
         " (k varchar(20) COLLATE utf8mb4_nopad_bin PRIMARY KEY, v text, b varbinary(8))");

  // A value that would break SQL text goes through as data.
  const std::string evil = "x'); DROP TABLE t; --";
  const std::string bytes("\0\xff", 2);
  CHECK(c.exec("INSERT INTO " + table + " VALUES (?, ?, ?)",
               std::vector<param>{param::text("a"), param::text(evil), param::bytes(bytes)}) == 1);
  auto r = c.query("SELECT v, b FROM " + table + " WHERE k = ?", std::vector{param::text("a")});
  REQUIRE(r.size() == 1);
  CHECK(r.at(0, 0) == evil);
  CHECK(r.at(0, 1) == bytes);

  // Bulk: three rows, one NULL, 4-byte UTF-8 intact; keys differing in case or in trailing
  // spaces stay apart (utf8mb4_nopad_bin: utf8mb4_bin is PAD SPACE and merges `a` and `a `).
  const std::vector<param> cells = {param::text("A"), param::text("\xF0\x9F\x98\x80"),
                                    param::null(),    param::text("a "),
                                    param::null(),    param::bytes(bytes),
                                    param::text("b"), param::text("plain"),
                                    param::null()};
  CHECK(c.exec_bulk("INSERT INTO " + table + " VALUES (?, ?, ?)", 3, cells) == 3);
  r = c.query("SELECT k, v, b FROM " + table + " ORDER BY k");
  REQUIRE(r.size() == 4);
  CHECK(r.at(0, 0) == "A");
  CHECK(r.at(0, 1) == "\xF0\x9F\x98\x80");
  CHECK_FALSE(r.at(0, 2).has_value());
  CHECK(r.at(1, 0) == "a");
  CHECK(r.at(2, 0) == "a ");
  CHECK_FALSE(r.at(2, 1).has_value());

  // CLIENT_FOUND_ROWS: an UPDATE to the same value reports the row it matched.
  CHECK(c.exec("UPDATE " + table + " SET v = 'plain' WHERE k = 'b'") == 1);
  CHECK(c.exec("UPDATE " + table + " SET v = ? WHERE k = ?",
               std::vector{param::text("plain"), param::text("b")}) == 1);

  // A server error carries its number and SQLSTATE; the connection stays usable.
  try {
    c.exec("INSERT INTO " + table + " VALUES (?, ?, ?)",
           std::vector{param::text("a"), param::null(), param::null()});
    FAIL("a duplicate key must fail");
  } catch (const mdb::mdb_error& e) {
    CHECK(e.code() == 1062);
    CHECK(e.sqlstate() == "23000");
  }
  CHECK_FALSE(c.broken());
  c.exec("DROP TABLE " + table);
}

TEST_CASE("mariadb connection: a wrong password is refused with the server's error") {
  mdb::connect_settings s = testing::mariadb_settings();
  s.target.password = "not-the-password";
  try {
    mdb::connection c(s);
    FAIL("the login must be refused");
  } catch (const mdb::mdb_error& e) {
    CHECK(e.code() == 1045);
  }
}

}  // namespace
}  // namespace sluice
