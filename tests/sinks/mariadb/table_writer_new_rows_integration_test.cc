#include "sinks/mariadb/write/table_writer.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/sinks/mariadb/writer_world.h"

// The writer's fast path for keys the table does not hold (table_writer_new_rows.cc) and its
// non-transactional stage (write_sql.h create_stage_sql), against a real MariaDB.

namespace sluice {
namespace {

using testing::writer_world;

constexpr const char* row_level =
    "id varchar(32) COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY, v varchar(64), n int, "
    "_sluice_csn varbinary(1024) NOT NULL, _sluice_updated_at datetime(6), "
    "_sluice_deleted boolean";

// INSERT … SELECT statements this session has run: the guarded upsert reads its stage so; the
// fast path does not.
long insert_selects(writer_world& w) {
  const mdb::result r = w.conn.query("SHOW SESSION STATUS LIKE 'Com_insert_select'");
  return std::stol(r.at(0, 1).value_or("0"));
}

TEST_CASE("mariadb writer: new keys go straight into a table without tombstones") {
  for (const bool soft : {false, true}) {
    CAPTURE(soft);
    writer_world w(row_level);
    if (soft) w.options.deletes = apply_delete_mode::soft;
    long before = insert_selects(w);
    apply_stats s =
        w.apply({w.upsert("a", 5, {{"v", value::string("a5")}}),
                 w.upsert("b", 5, {{"v", value::string("b5")}, {"n", value::number("2")}})});
    CHECK(s.upserted == 2);
    CHECK(insert_selects(w) == before);  // no stage read: the fast path wrote them
    // As the upsert would have made them: the CSN, the time, not deleted.
    const std::string csn = testing::to_hex(csn_builder().add(5).build().bytes());
    const std::string deleted = soft ? "0" : "~";
    CHECK(w.rows("id, v, n, hex(_sluice_csn), _sluice_updated_at IS NOT NULL, _sluice_deleted") ==
          "a,a5,~," + csn + ",1," + deleted + " | b,b5,2," + csn + ",1," + deleted);

    // A key the table holds fails the fast path (1062): the guarded upsert writes the batch,
    // nothing of the failed INSERT stays, and the older change is stale.
    before = insert_selects(w);
    s = w.apply({w.upsert("a", 3, {{"v", value::string("a3")}}),
                 w.upsert("c", 4, {{"v", value::string("c4")}}),
                 w.upsert("b", 7, {{"v", value::string("b7")}})});
    CHECK(insert_selects(w) > before);
    CHECK(s.upserted == 2);
    CHECK(s.stale == 1);
    CHECK(w.rows() == "a,a5 | b,b7 | c,c4");
  }
}

TEST_CASE("mariadb writer: a table with tombstones takes the guarded path, late inserts stay out") {
  writer_world w(row_level);
  w.apply({w.upsert("a", 5, {{"v", value::string("a5")}})});
  // Deleted at 9 before the table ever held it (the delete came first): a tombstone alone.
  apply_stats s = w.apply({w.remove("d", 9)});
  CHECK(s.tombstones == 1);
  const long before = insert_selects(w);
  // d's insert at 4 is older than its delete: not written, though the table does not hold d.
  s = w.apply({w.upsert("d", 4, {{"v", value::string("d4")}}),
               w.upsert("e", 4, {{"v", value::string("e4")}})});
  CHECK(insert_selects(w) > before);
  CHECK(s.upserted == 1);
  CHECK(s.stale == 1);
  CHECK(w.rows() == "a,a5 | e,e4");
}

TEST_CASE(
    "mariadb writer: a bad value on the fast path is the batch's error, as on the guarded one") {
  writer_world w(
      "id varchar(32) COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY, d datetime(6), "
      "_sluice_csn varbinary(1024) NOT NULL");
  try {
    w.apply({w.upsert("b", 2, {{"d", value::string("2026-07-13T04:01:01Z")}}),
             w.upsert("c", 2, {{"d", value::string("2026-02-30 00:00:00")}})});
    FAIL("a bad date was written");
  } catch (const mdb::mdb_error& e) {
    CHECK(e.code() == 1292);
  }
  CHECK(w.rows("id, d") == "");
}

// The stage's engine, as this session created it.
std::string stage_engine(writer_world& w) {
  // The stage of an upsert of column v (temporary tables are not listed: named by definition).
  mdb::column_def id{"id", "varchar(32)", "utf8mb4_nopad_bin", false};
  mdb::column_def v{"v", "varchar(64)", "utf8mb4_nopad_bin", true};
  const mdb::stage_def stage = mdb::make_stage(mdb::stage_kind::upsert, {&id}, true, {&v});
  const mdb::result r = w.conn.query("SHOW CREATE TABLE " + mdb::quote_identifier(stage.table));
  const std::string text = r.at(0, 1).value_or("");
  const size_t at = text.find("ENGINE=");
  return at == std::string::npos ? "" : text.substr(at + 7, text.find(' ', at) - at - 7);
}

TEST_CASE("mariadb writer: the stage is Aria, or the server's engine where Aria is refused") {
  for (const bool enforced : {false, true}) {
    CAPTURE(enforced);
    writer_world w(row_level);
    if (enforced) w.conn.exec("SET SESSION enforce_storage_engine = InnoDB");
    // A tombstone: the guarded path, which reads a stage.
    w.apply({w.remove("z", 1)});
    w.apply({w.upsert("a", 5, {{"v", value::string("a5")}})});
    CHECK(w.rows() == "a,a5");
    CHECK(stage_engine(w) == (enforced ? "InnoDB" : "Aria"));
    // A batch that fails after its stage was filled, rolled back: a ROLLBACK leaves an Aria
    // stage's rows, and the next fill must not read them.
    CHECK_THROWS_AS(w.apply({w.upsert("b", 6, {{"v", value::string("b6")}}),
                             w.upsert("c", 6, {{"n", value::string("not a number")}})}),
                    mdb::mdb_error);
    w.apply({w.upsert("e", 6, {{"v", value::string("e6")}})});
    CHECK(w.rows() == "a,a5 | e,e6");
  }
}

}  // namespace
}  // namespace sluice
