#include "sinks/mariadb/session/multi_row_insert.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace sluice {
namespace {

using mdb::param;

TEST_CASE("mariadb multi-row insert: the row of placeholders repeated, the text around kept") {
  const auto v = mdb::split_values_row(
      "INSERT INTO `s`.`t (?)` (a, `values`) VALUES (?, CAST(? AS SIGNED), 'x(?)') AS new "
      "ON DUPLICATE KEY UPDATE a = new.a");
  REQUIRE(v.has_value());
  CHECK(v->head == "INSERT INTO `s`.`t (?)` (a, `values`) VALUES ");
  CHECK(v->row == "(?, CAST(? AS SIGNED), 'x(?)')");
  CHECK(v->tail == " AS new ON DUPLICATE KEY UPDATE a = new.a");
  CHECK(mdb::multi_row_sql(*v, 3) ==
        "INSERT INTO `s`.`t (?)` (a, `values`) VALUES (?, CAST(? AS SIGNED), 'x(?)'), "
        "(?, CAST(? AS SIGNED), 'x(?)'), (?, CAST(? AS SIGNED), 'x(?)') AS new "
        "ON DUPLICATE KEY UPDATE a = new.a");
  CHECK(mdb::multi_row_sql(*v, 1) ==
        "INSERT INTO `s`.`t (?)` (a, `values`) VALUES (?, CAST(? AS SIGNED), 'x(?)') AS new "
        "ON DUPLICATE KEY UPDATE a = new.a");
  // MariaDB's VALUES(col) in the tail is not the row; lower case and REPLACE are statements too.
  const auto odku = mdb::split_values_row(
      "  replace into t values (?, 'it''s', ?) ON DUPLICATE KEY UPDATE b = VALUES(b)");
  REQUIRE(odku.has_value());
  CHECK(odku->row == "(?, 'it''s', ?)");
  CHECK(odku->tail == " ON DUPLICATE KEY UPDATE b = VALUES(b)");
}

TEST_CASE("mariadb multi-row insert: statements that run once per row instead") {
  CHECK_FALSE(mdb::split_values_row("UPDATE t SET a = ? WHERE k = ?"));
  CHECK_FALSE(mdb::split_values_row("INSERT INTO t SELECT ?, ? FROM dual"));
  CHECK_FALSE(mdb::split_values_row("INSERT INTO t VALUES (?, 1) ON DUPLICATE KEY UPDATE a = ?"));
  CHECK_FALSE(mdb::split_values_row("INSERT INTO t VALUES (1, 2)"));
  CHECK_FALSE(mdb::split_values_row("INSERT INTO t VALUES (?, 'open"));
  CHECK_FALSE(mdb::split_values_row("INSERT INTO t VALUES (?, ?), (?, ?)"));
}

TEST_CASE("mariadb multi-row insert: chunks bounded by placeholders and packet bytes") {
  const std::string small = "abc";
  std::vector<param> cells;
  for (int i = 0; i < 70000; ++i) {
    cells.push_back(param::text(small));
    cells.push_back(i % 2 ? param::null() : param::bytes(small));
  }
  const size_t packet = size_t(64) << 20;
  // 65,535 placeholders / 2 = 32,767 rows, floored to a power of two.
  CHECK(mdb::rows_in_chunk(2, cells, 0, packet) == 16384);
  // Fewer rows left: the largest power of two in them.
  CHECK(mdb::rows_in_chunk(2, cells, 70000 - 100, packet) == 64);
  CHECK(mdb::rows_in_chunk(2, cells, 70000 - 1, packet) == 1);
  CHECK(mdb::rows_in_chunk(2, cells, 70000, packet) == 0);
  CHECK(mdb::rows_in_chunk(1, std::vector{param::null()}, 0, packet) == 1);

  // Bytes: rows of 1,000 bytes in a 10,000-byte packet: 9 fit (types, lengths, header), 8 go.
  const std::string kilo(1000, 'x');
  std::vector<param> wide(20, param::bytes(kilo));
  CHECK(mdb::rows_in_chunk(1, wide, 0, 10000) == 8);
  CHECK(mdb::rows_in_chunk(1, wide, 0, 4200) == 4);
  // A row over the limit goes alone (the server refuses it, as under array binding).
  CHECK(mdb::rows_in_chunk(1, wide, 0, 500) == 1);
}

}  // namespace
}  // namespace sluice
