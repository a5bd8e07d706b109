#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sinks/mariadb/sql/mdb_identifier.h"
#include "tests/sinks/mariadb/mdb_test_env.h"

namespace sluice {
namespace {

using mdb::param;

// exec_bulk's multi-row path (MySQL 8's: its server has no array binding), forced with
// connect_settings::multi_row_bulk and run here against MariaDB, next to array binding as the
// oracle: same rows stored, same counts reported.
mdb::connect_settings multi_row_settings() {
  mdb::connect_settings s = testing::mariadb_settings();
  s.multi_row_bulk = true;
  return s;
}

std::string make_table(mdb::connection& c, const std::string& stem) {
  const std::string table = mdb::quote_identifier(testing::unique_name(stem));
  c.exec("CREATE TABLE " + table +
         " (k int PRIMARY KEY, v text COLLATE utf8mb4_nopad_bin, b longblob)");
  return table;
}

TEST_CASE("mariadb multi-row bulk: values as data, NULLs, bytes, 4-byte UTF-8, as array binding") {
  mdb::connection bulk(testing::mariadb_settings());
  mdb::connection rows(multi_row_settings());
  CHECK_FALSE(bulk.multi_row_bulk());  // MariaDB 10.11 has bulk execution
  CHECK(rows.multi_row_bulk());
  const std::string a = make_table(bulk, "mr`a"), b = make_table(bulk, "mr`b");

  const std::string bytes("\0\xff'\\?", 5);
  const std::vector<std::string> keys = {"1", "2", "3", "4"};
  const std::vector<param> cells = {param::text(keys[0]),
                                    param::text("x'); DROP TABLE t; -- ?"),
                                    param::bytes(bytes),
                                    param::text(keys[1]),
                                    param::text("\xF0\x9F\x98\x80 \xE2\x82\xAC"),
                                    param::null(),
                                    param::text(keys[2]),
                                    param::null(),
                                    param::bytes(""),
                                    param::text(keys[3]),
                                    param::text(""),
                                    param::null()};
  // A `?` and a parenthesis in the text around the row are not the row's.
  const std::string tail = " ON DUPLICATE KEY UPDATE v = IF(v = '?)', v, VALUES(v))";
  CHECK(bulk.exec_bulk("INSERT INTO " + a + " (k, v, b) VALUES (?, ?, ?)" + tail, 3, cells) == 4);
  CHECK(rows.exec_bulk("INSERT INTO " + b + " (k, v, b) VALUES (?, ?, ?)" + tail, 3, cells) == 4);
  const std::string read = " ORDER BY k";
  const mdb::result want = bulk.query("SELECT k, v, b FROM " + a + read);
  const mdb::result got = rows.query("SELECT k, v, b FROM " + b + read);
  REQUIRE(got.size() == 4);
  CHECK(got.rows == want.rows);
  CHECK(got.at(0, 1) == "x'); DROP TABLE t; -- ?");
  CHECK(got.at(0, 2) == bytes);
  CHECK(got.at(1, 1) == "\xF0\x9F\x98\x80 \xE2\x82\xAC");
  CHECK_FALSE(got.at(1, 2).has_value());
  CHECK_FALSE(got.at(2, 1).has_value());
  CHECK(got.at(2, 2) == "");

  // The upsert again: one row changed (2 under ON DUPLICATE KEY UPDATE), three found unchanged
  // (1 each under CLIENT_FOUND_ROWS), counted the same way on both paths.
  std::vector<param> again = cells;
  again[1] = param::text("changed");
  CHECK(bulk.exec_bulk("INSERT INTO " + a + " (k, v, b) VALUES (?, ?, ?)" + tail, 3, again) == 5);
  CHECK(rows.exec_bulk("INSERT INTO " + b + " (k, v, b) VALUES (?, ?, ?)" + tail, 3, again) == 5);
  CHECK(rows.query("SELECT v FROM " + b + " WHERE k = 1").at(0, 0) == "changed");

  // Not an INSERT: once per row, the rows it matched in all.
  const std::vector<param> updates = {param::text("u"), param::text("1"), param::text("u"),
                                      param::text("9")};
  CHECK(rows.exec_bulk("UPDATE " + b + " SET v = ? WHERE k = ?", 2, updates) == 1);
  CHECK(rows.query("SELECT v FROM " + b + " WHERE k = 1").at(0, 0) == "u");

  // A duplicate key fails the statement as array binding does; the connection stays usable.
  try {
    rows.exec_bulk("INSERT INTO " + b + " (k, v, b) VALUES (?, ?, ?)", 3, cells);
    FAIL("a duplicate key must fail");
  } catch (const mdb::mdb_error& e) {
    CHECK(e.code() == 1062);
  }
  CHECK(rows.query("SELECT COUNT(*) FROM " + b).at(0, 0) == "4");
  bulk.exec("DROP TABLE " + a);
  bulk.exec("DROP TABLE " + b);
}

TEST_CASE("mariadb multi-row bulk: more rows than one statement takes, by placeholders and bytes") {
  mdb::connection c(multi_row_settings());
  const std::string table = make_table(c, "mr`chunks");
  // 40,000 rows × 3 placeholders: more than 65,535 placeholders, and more than 32,768 rows,
  // the largest power of two below them (one statement of those would be refused, 1390).
  constexpr int n = 40000;
  std::vector<std::string> text;
  text.reserve(2 * n);
  for (int i = 0; i < n; ++i) {
    text.push_back(std::to_string(i));
    text.push_back("v" + std::to_string(i) + "\xF0\x9F\x98\x80");
  }
  std::vector<param> cells;
  for (int i = 0; i < n; ++i) {
    cells.push_back(param::text(text[2 * i]));
    cells.push_back(i % 7 == 0 ? param::null() : param::text(text[2 * i + 1]));
    cells.push_back(param::bytes(std::string_view(text[2 * i]).substr(0, 1)));
  }
  CHECK(c.exec_bulk("INSERT INTO " + table + " (k, v, b) VALUES (?, ?, ?)", 3, cells) == n);
  const mdb::result r = c.query(
      "SELECT COUNT(*), SUM(v IS NULL), SUM(v = CONCAT('v', k, X'F09F9880')), "
      "MIN(k), MAX(k) FROM " +
      table);
  CHECK(r.at(0, 0) == std::to_string(n));
  CHECK(r.at(0, 1) == std::to_string((n + 6) / 7));
  CHECK(r.at(0, 2) == std::to_string(n - (n + 6) / 7));
  CHECK(r.at(0, 3) == "0");
  CHECK(r.at(0, 4) == std::to_string(n - 1));
  c.exec("TRUNCATE TABLE " + table);

  // Three values of a third of max_allowed_packet each: no two fit one packet with the rest,
  // so the rows go in more than one statement (one statement would be refused, 1153).
  const size_t packet = std::stoull(*c.query("SELECT @@max_allowed_packet").at(0, 0));
  REQUIRE(packet <= (size_t(256) << 20));  // the fixture's is 64 MiB
  std::vector<std::string> big;
  for (char ch : {'a', 'b', 'c'})
    big.emplace_back(packet / 3 + 1, ch);
  const std::vector<std::string> ks = {"1", "2", "3"};
  std::vector<param> large;
  for (size_t i = 0; i < 3; ++i) {
    large.push_back(param::text(ks[i]));
    large.push_back(param::null());
    large.push_back(param::bytes(big[i]));
  }
  CHECK(c.exec_bulk("INSERT INTO " + table + " (k, v, b) VALUES (?, ?, ?)", 3, large) == 3);
  const mdb::result sizes = c.query(
      "SELECT k, LENGTH(b), b = REPEAT(LEFT(b, 1), LENGTH(b)), "
      "LEFT(b, 1) FROM " +
      table + " ORDER BY k");
  REQUIRE(sizes.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(sizes.at(i, 1) == std::to_string(packet / 3 + 1));
    CHECK(sizes.at(i, 2) == "1");
    CHECK(sizes.at(i, 3) == std::string(1, "abc"[i]));
  }
  c.exec("DROP TABLE " + table);
}

}  // namespace
}  // namespace sluice
