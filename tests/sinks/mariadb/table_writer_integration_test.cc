#include "sinks/mariadb/write/table_writer.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sinks/mariadb/sql/ddl_sql.h"
#include "tests/sinks/mariadb/writer_world.h"

namespace sluice {
namespace {

using testing::to_hex;
using testing::writer_world;

constexpr const char* keyed =
    "id varchar(32) COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY, v varchar(64), n int, "
    "_sluice_csn varbinary(1024) NOT NULL, _sluice_col_csn json, _sluice_deleted boolean";
// The same without per-column CSNs (the row-level guard).
constexpr const char* row_level =
    "id varchar(32) COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY, v varchar(64), n int, "
    "_sluice_csn varbinary(1024) NOT NULL, _sluice_deleted boolean";

TEST_CASE("mariadb writer: an older upsert after a newer one changes nothing") {
  for (const auto dialect : {mdb::sql_dialect::mariadb(), mdb::sql_dialect::mysql8()}) {
    CAPTURE(dialect.mysql);
    writer_world w(row_level);
    w.dialect = dialect;
    apply_stats s = w.apply({w.upsert("a", 5, {{"v", value::string("new")}}),
                             w.upsert("b", 5, {{"v", value::string("b5")}})});
    CHECK(s.upserted == 2);
    s = w.apply({w.upsert("a", 3, {{"v", value::string("old")}}),
                 w.upsert("b", 7, {{"v", value::string("b7")}})});
    CHECK(s.upserted == 1);
    CHECK(s.stale == 1);
    CHECK(w.rows() == "a,new | b,b7");
    // Replayed: nothing changes, both stale.
    s = w.apply({w.upsert("a", 5, {{"v", value::string("new")}}),
                 w.upsert("b", 7, {{"v", value::string("b7")}})});
    CHECK(s.upserted == 0);
    CHECK(s.stale == 2);
    CHECK(w.rows() == "a,new | b,b7");
  }
}

TEST_CASE("mariadb writer: at equal CSN the greater value is kept, as the merge keeps it") {
  writer_world w(row_level);
  w.apply({w.upsert("a", 5, {{"v", value::string("m")}})});
  w.apply({w.upsert("a", 5, {{"v", value::string("a")}})});
  CHECK(w.rows() == "a,m");
  const apply_stats s = w.apply({w.upsert("a", 5, {{"v", value::string("z")}})});
  CHECK(s.upserted == 1);
  CHECK(w.rows() == "a,z");
}

TEST_CASE("mariadb writer: a delete then a late older upsert leaves the row gone") {
  writer_world w(row_level);
  w.apply({w.upsert("a", 5, {{"v", value::string("x")}}),
           w.upsert("b", 5, {{"v", value::string("y")}})});
  apply_stats s = w.apply({w.remove("a", 6)});
  CHECK(s.deleted == 1);
  CHECK(s.tombstones == 1);
  CHECK(w.rows() == "b,y");
  s = w.apply({w.upsert("a", 4, {{"v", value::string("late")}})});
  CHECK(s.upserted == 0);
  CHECK(s.stale == 1);
  CHECK(w.rows() == "b,y");
  // An older delete does not lower the tombstone; a newer upsert brings the row back.
  s = w.apply({w.remove("a", 2)});
  CHECK(s.tombstones == 0);
  s = w.apply({w.upsert("a", 6, {{"v", value::string("again")}})});  // equal CSN: upsert wins
  CHECK(s.upserted == 1);
  CHECK(w.rows() == "a,again | b,y");
  CHECK(w.conn.query("SELECT hex(csn) FROM " + w.state.table("tombstones")).at(0, 0) ==
        w.conn.query("SELECT hex(_sluice_csn) FROM " + w.t() + " WHERE id = 'a'").at(0, 0));
}

TEST_CASE("mariadb writer: soft deletes keep the row marked, an upsert at equal CSN revives it") {
  writer_world w(row_level);
  w.options.deletes = apply_delete_mode::soft;
  w.apply({w.upsert("a", 5, {{"v", value::string("x")}})});
  apply_stats s = w.apply({w.remove("a", 6)});
  CHECK(s.deleted == 1);
  CHECK(w.rows("id, v, _sluice_deleted") == "a,x,1");
  s = w.apply({w.upsert("a", 6, {{"v", value::string("b")}})});
  CHECK(s.upserted == 1);
  CHECK(w.rows("id, v, _sluice_deleted") == "a,b,0");
}

TEST_CASE("mariadb writer: a partial image before an older full row keeps both right") {
  writer_world w(keyed);
  // The partial update (CSN 7) arrives first, then the full row it updated (CSN 5).
  apply_stats s = w.apply({w.upsert("a", 7, {{"v", value::string("new v")}}, true)});
  CHECK(s.upserted == 1);
  s = w.apply({w.upsert("a", 5, {{"v", value::string("old v")}, {"n", value::number("42")}})});
  CHECK(s.upserted == 1);
  CHECK(w.rows("id, v, n") == "a,new v,42");
  // The row's CSN is the highest column CSN; the map keeps each column's.
  const std::string hex7 = w.conn.query("SELECT hex(_sluice_csn) FROM " + w.t()).at(0, 0).value();
  s = w.apply({w.upsert("a", 6, {{"v", value::string("older v")}, {"n", value::number("43")}})});
  CHECK(w.rows("id, v, n") == "a,new v,43");
  CHECK(w.conn.query("SELECT hex(_sluice_csn) FROM " + w.t()).at(0, 0).value() == hex7);
  // A delete at 6.5 (here 8 after a column at 9): the newer column survives, the older is NULL.
  w.apply({w.upsert("a", 9, {{"n", value::number("99")}}, true)});
  s = w.apply({w.remove("a", 8)});
  CHECK(s.deleted == 0);
  CHECK(w.rows("id, v, n") == "a,~,99");
  // A late partial older than the delete stays out.
  w.apply({w.upsert("a", 7, {{"v", value::string("late")}}, true)});
  CHECK(w.rows("id, v, n") == "a,~,99");
}

TEST_CASE("mariadb writer: a row without a column map is versioned from its row CSN") {
  writer_world w(keyed);
  w.apply({w.upsert("a", 5, {{"v", value::string("x")}, {"n", value::number("1")}})});
  w.conn.exec("UPDATE " + w.t() + " SET _sluice_col_csn = NULL");
  // A partial at 6 sets v; n stays at the row's CSN 5, which an older partial cannot
  // override, but a newer one can.
  w.apply({w.upsert("a", 6, {{"v", value::string("y")}}, true)});
  CHECK(w.rows("id, v, n") == "a,y,1");
  w.apply({w.upsert("a", 4, {{"n", value::number("2")}}, true)});
  CHECK(w.rows("id, v, n") == "a,y,1");
  w.apply({w.upsert("a", 7, {{"n", value::number("3")}}, true)});
  CHECK(w.rows("id, v, n") == "a,y,3");
}

TEST_CASE("mariadb writer: a bad date is an error of the batch and leaves nothing behind") {
  writer_world w(
      "id varchar(32) COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY, d datetime(6), "
      "_sluice_csn varbinary(1024) NOT NULL");
  // A zoned timestamp is stored in UTC.
  w.apply({w.upsert("a", 1, {{"d", value::string("2026-07-13T04:01:01.1234567+02:00")}})});
  CHECK(w.rows("id, d") == "a,2026-07-13 02:01:01.123456");
  try {
    w.apply({w.upsert("b", 2, {{"d", value::string("2026-07-13T04:01:01Z")}}),
             w.upsert("c", 2, {{"d", value::string("2026-02-30 00:00:00")}})});
    FAIL("a bad date was written");
  } catch (const mdb::mdb_error& e) {
    CHECK(e.code() == 1292);
    CHECK(e.sqlstate() == "22007");
  }
  CHECK(w.rows("id, d") == "a,2026-07-13 02:01:01.123456");
  // A number out of range too.
  writer_world n(
      "id varchar(32) COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY, v tinyint, "
      "_sluice_csn varbinary(1024) NOT NULL");
  CHECK_THROWS_AS(n.apply({n.upsert("a", 1, {{"v", value::number("300")}})}), mdb::mdb_error);
  CHECK(n.rows() == "");
}

TEST_CASE("mariadb writer: keys differing in case and trailing space stay rows of their own") {
  writer_world w(row_level);
  const std::string smile = "\xF0\x9F\x98\x80 \xF0\x9D\x84\x9E";  // 4-byte UTF-8
  w.apply({w.upsert("a", 1, {{"v", value::string("lower")}}),
           w.upsert("A", 1, {{"v", value::string("upper")}}),
           w.upsert("a ", 1, {{"v", value::string(smile)}})});
  CHECK(w.conn.query("SELECT count(*) FROM " + w.t()).at(0, 0) == "3");
  CHECK(w.conn.query("SELECT v FROM " + w.t() + " WHERE id = 'a '").at(0, 0) == smile);
  w.apply({w.remove("A", 2)});
  CHECK(w.conn.query("SELECT count(*) FROM " + w.t()).at(0, 0) == "2");
}

TEST_CASE("mariadb writer: a truncate removes older rows and its tombstone refuses older upserts") {
  writer_world w(row_level);
  w.options.truncate_enabled = true;
  w.apply({w.upsert("a", 1, {{"v", value::string("x")}}),
           w.upsert("b", 9, {{"v", value::string("y")}})});
  apply_stats s = w.apply({w.make(op_kind::truncate, "", 5)});
  CHECK(s.truncates_applied == 1);
  CHECK(s.deleted == 1);
  CHECK(s.tombstones == 1);
  CHECK(w.rows() == "b,y");
  s = w.apply({w.upsert("c", 4, {{"v", value::string("late")}})});
  CHECK(s.stale == 1);
  s = w.apply({w.upsert("c", 6, {{"v", value::string("after")}})});
  CHECK(s.upserted == 1);
  CHECK(w.rows() == "b,y | c,after");
  // truncate.enabled off: counted only.
  w.options.truncate_enabled = false;
  s = w.apply({w.make(op_kind::truncate, "", 50)});
  CHECK(s.truncates_ignored == 1);
  CHECK(w.rows() == "b,y | c,after");
}

TEST_CASE("mariadb writer: an append replayed writes once, and a bad value is still an error") {
  writer_world w(
      "id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, v varchar(64), n int, "
      "_sluice_op varchar(16), _sluice_csn varbinary(1024), _sluice_source_ts datetime(6), "
      "_sluice_tx text, _sluice_kafka_topic varchar(249), _sluice_kafka_partition int, "
      "_sluice_kafka_offset bigint, _sluice_kafka_index int");
  w.conn.exec(mdb::position_index_sql({w.db, "t"}));
  auto append = [&](int64_t offset, const std::string& v, const std::string& n = "1") {
    change c;
    c.table = w.table;
    c.after = {{"v", value::string(v)}, {"n", value::number(n)}};
    c.seq = csn_builder().add(offset).build();
    c.source.source_ts = timestamp_ns{1'700'000'000'123'456'000};
    c.source.origin = {"topic", partition_id{0}, kafka_offset{offset}, timestamp_ns{0}, 0};
    return c;
  };
  apply_stats s = w.apply({append(1, "x"), append(2, "y")});
  CHECK(s.appended == 2);
  s = w.apply({append(1, "x"), append(2, "y"), append(3, "z")});
  CHECK(s.appended == 1);
  CHECK(w.rows("v, _sluice_source_ts") ==
        "x,2023-11-14 22:13:20.123456 | y,2023-11-14 22:13:20.123456 | "
        "z,2023-11-14 22:13:20.123456");
  CHECK_THROWS_AS(w.apply({append(4, "w", "not a number")}), mdb::mdb_error);
  CHECK(w.conn.query("SELECT count(*) FROM " + w.t()).at(0, 0) == "3");
}

TEST_CASE("mariadb writer: the CSN assigned first would let stale columns through") {
  // The same statement with _sluice_csn moved to the front of ON DUPLICATE KEY UPDATE: the
  // column guards then read the new CSN and refuse the newer image's values.
  writer_world w(row_level);
  w.apply({w.upsert("a", 5, {{"v", value::string("old")}})});
  const mdb::table_shape shape = w.shape();
  const std::vector<const mdb::column_def*> key{shape.find("id")};
  const std::vector<const mdb::column_def*> cols{shape.find("v")};
  mdb::write_sql_context ctx;
  ctx.tombstones = w.state.table("tombstones");
  const mdb::stage_def stage = mdb::make_stage(mdb::stage_kind::upsert, key, true, cols);
  std::string sql = mdb::upsert_sql({w.db, "t"}, stage, key, cols, ctx);
  const std::string csn_set = ", `_sluice_csn` = IF(";
  const size_t at = sql.rfind(csn_set);
  REQUIRE(at != std::string::npos);
  const std::string last = sql.substr(at + 2);
  sql = sql.substr(0, at);
  const std::string odku = "ON DUPLICATE KEY UPDATE ";
  sql.insert(sql.find(odku) + odku.size(), last + ", ");
  mdb::stager st;
  st.begin(stage.columns.size());
  const change c = w.upsert("a", 6, {});
  const std::string canonical = c.key.canonical;
  const std::string seq(c.seq.bytes());
  st.add(mdb::param::bytes(canonical));
  st.add(mdb::param::bytes(seq));
  st.add(mdb::param::text("a"));
  st.add(mdb::param::text("new"));
  st.end_row();
  w.conn.exec("START TRANSACTION");
  st.fill(w.conn, stage, w.dialect);
  w.conn.exec(sql, std::vector{mdb::param::text(w.db), mdb::param::text("t"),
                               mdb::param::text(w.db), mdb::param::text("t")});
  // Reordered: the CSN rose, the value did not follow.
  CHECK(w.rows() == "a,old");
  CHECK(w.rows("id, hex(_sluice_csn)") == "a," + to_hex(seq));
  w.conn.exec("ROLLBACK");
  // As built (CSN last), the same row applies.
  w.apply({w.upsert("a", 6, {{"v", value::string("new")}})});
  CHECK(w.rows() == "a,new");
}

}  // namespace
}  // namespace sluice
