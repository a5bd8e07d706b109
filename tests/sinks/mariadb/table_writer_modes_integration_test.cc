// The MariaDB writer's two modes beside the guarded upsert, against a real server (the model:
// tests/sinks/batch_applier_integration_test.cc "update mode…" and
// logical_router_integration_test.cc on PostgreSQL): insert.mode update, which updates the rows
// the table holds under the upsert's guards and makes none, and the shard tables of
// ByLogicalTableRouter, whose truncates are confined to one shard.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/sinks/mariadb/writer_world.h"

namespace sluice {
namespace {

using testing::writer_world;

constexpr const char* row_level =
    "id varchar(32) COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY, v varchar(64), n int, "
    "_sluice_csn varbinary(1024) NOT NULL, _sluice_deleted boolean";
constexpr const char* column_level =
    "id varchar(32) COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY, v varchar(64), n int, "
    "_sluice_csn varbinary(1024) NOT NULL, _sluice_col_csn json, _sluice_deleted boolean";

TEST_CASE("mariadb writer, update mode: held rows are updated, the others counted, none made") {
  for (const auto dialect : {mdb::sql_dialect::mariadb(), mdb::sql_dialect::mysql8()}) {
    CAPTURE(dialect.mysql);
    writer_world w(row_level);
    w.dialect = dialect;
    w.apply({w.upsert("a", 5, {{"v", value::string("x")}, {"n", value::number("1")}})});
    w.options.update_only = true;
    apply_stats s = w.apply({w.upsert("a", 7, {{"v", value::string("new")}}),
                             w.upsert("b", 7, {{"v", value::string("never")}})});
    CHECK(s.upserted == 1);
    CHECK(s.missing == 1);
    CHECK(s.stale == 0);
    CHECK(w.rows("id, v, n") == "a,new,1");
    // Guarded as an upsert is: an older change of a held row is stale, not applied.
    s = w.apply({w.upsert("a", 6, {{"v", value::string("old")}, {"n", value::number("2")}})});
    CHECK(s.upserted == 0);
    CHECK(s.stale == 1);
    CHECK(s.missing == 0);
    CHECK(w.rows("id, v, n") == "a,new,1");
    // At equal CSN the greater value is kept, as the upsert keeps it.
    s = w.apply({w.upsert("a", 7, {{"v", value::string("zzz")}})});
    CHECK(s.upserted == 1);
    CHECK(w.rows("id, v, n") == "a,zzz,1");
    // Only the rows the table holds: b is still absent however often it comes.
    s = w.apply({w.upsert("b", 9, {{"v", value::string("never")}})});
    CHECK(s.missing == 1);
    CHECK(w.rows("id") == "a");
  }
}

TEST_CASE("mariadb writer, update mode: deletes apply, and a deleted row's change is stale") {
  writer_world w(row_level);
  w.apply({w.upsert("a", 5, {{"v", value::string("x")}})});
  w.options.update_only = true;
  apply_stats s = w.apply({w.remove("a", 8)});
  CHECK(s.deleted == 1);
  CHECK(s.tombstones == 1);
  // Older than the delete: its tombstone refuses it, stale rather than missing.
  s = w.apply({w.upsert("a", 7, {{"v", value::string("late")}})});
  CHECK(s.stale == 1);
  CHECK(s.missing == 0);
  // Newer: the row is gone, and an update does not bring it back.
  s = w.apply({w.upsert("a", 9, {{"v", value::string("again")}})});
  CHECK(s.missing == 1);
  CHECK(s.upserted == 0);
  CHECK(w.rows() == "");
}

TEST_CASE("mariadb writer, update mode: a soft-deleted row stays deleted") {
  writer_world w(row_level);
  w.options.deletes = apply_delete_mode::soft;
  w.apply({w.upsert("a", 5, {{"v", value::string("x")}})});
  w.apply({w.remove("a", 6)});
  REQUIRE(w.rows("id, v, _sluice_deleted") == "a,x,1");
  w.options.update_only = true;
  // At equal CSN an upsert would revive it (an upsert beats a delete); an update makes no row.
  apply_stats s = w.apply({w.upsert("a", 6, {{"v", value::string("b")}}),
                           w.upsert("c", 6, {{"v", value::string("c")}})});
  CHECK(s.upserted == 0);
  CHECK(s.stale == 1);
  CHECK(s.missing == 1);
  s = w.apply({w.upsert("a", 7, {{"v", value::string("b")}})});
  CHECK(s.upserted == 0);
  CHECK(w.rows("id, v, _sluice_deleted") == "a,x,1");
}

TEST_CASE("mariadb writer, update mode: column by column where the table keeps column CSNs") {
  for (const auto dialect : {mdb::sql_dialect::mariadb(), mdb::sql_dialect::mysql8()}) {
    CAPTURE(dialect.mysql);
    writer_world w(column_level);
    w.dialect = dialect;
    w.apply({w.upsert("a", 5, {{"v", value::string("x")}, {"n", value::number("1")}})});
    w.options.update_only = true;
    apply_stats s = w.apply({w.upsert("a", 7, {{"v", value::string("y")}}, true),
                             w.upsert("b", 8, {{"v", value::string("never")}}, true)});
    CHECK(s.upserted == 1);
    CHECK(s.missing == 1);
    CHECK(w.rows("id, v, n") == "a,y,1");
    // Older than v (7), newer than n (5): n only.
    s = w.apply({w.upsert("a", 6, {{"v", value::string("z")}, {"n", value::number("2")}})});
    CHECK(s.upserted == 1);
    CHECK(w.rows("id, v, n") == "a,y,2");
    // Older than both: stale.
    s = w.apply({w.upsert("a", 4, {{"v", value::string("w")}, {"n", value::number("3")}})});
    CHECK(s.upserted == 0);
    CHECK(s.stale == 1);
    CHECK(w.rows("id, v, n") == "a,y,2");
    CHECK(w.conn.query("SELECT count(*) FROM " + w.t()).at(0, 0) == "1");
  }
}

// ByLogicalTableRouter: the key is (id, shard), the shard column naming the source table.
constexpr const char* sharded =
    "id varchar(32) COLLATE utf8mb4_nopad_bin NOT NULL, "
    "shard varchar(64) COLLATE utf8mb4_nopad_bin NOT NULL, v varchar(64), n int, "
    "_sluice_csn varbinary(1024) NOT NULL, _sluice_deleted boolean, PRIMARY KEY (id, shard)";

struct shards {
  writer_world w;

  explicit shards(const std::string& columns = sharded) : w(columns) {
    w.options.truncate_enabled = true;
    w.options.shard_columns = {"shard"};
  }
  // As the transform leaves a change: the shard column in the key and in the row.
  change upsert(const std::string& id, const std::string& shard, int64_t n, image img = {},
                bool partial = false) {
    change c = w.upsert(id, n, std::move(img), partial);
    c.after.push_back({"shard", value::string(shard)});
    auto k = make_row_key({"id", "shard"}, {value::string(id), value::string(shard)});
    REQUIRE(k.ok());
    c.key = k.value();
    return c;
  }
  change truncate(const std::string& shard, int64_t n) {
    change c = w.make(op_kind::truncate, "", n);
    auto k = make_row_key({"shard"}, {value::string(shard)});
    REQUIRE(k.ok());
    c.key = k.value();
    return c;
  }
  // "id@shard=v …" (or the other columns given), by shard then id; NULL as ~.
  std::string rows(const std::string& values = "v") {
    std::string out;
    for (const auto& r :
         w.conn.query("SELECT id, shard, " + values + " FROM " + w.t() + " ORDER BY shard, id")
             .rows) {
      out += *r[0] + "@" + *r[1] + "=";
      for (size_t i = 2; i < r.size(); ++i)
        out += (i > 2 ? "," : "") + r[i].value_or("~");
      out += " ";
    }
    return out;
  }
};

TEST_CASE("mariadb writer, shards: a truncate removes its shard's rows only") {
  shards s;
  s.w.apply({s.upsert("1", "db1", 10, {{"v", value::string("a")}}),
             s.upsert("2", "db1", 60, {{"v", value::string("b")}}),
             s.upsert("1", "db2", 10, {{"v", value::string("c")}}),
             s.upsert("2", "db2", 11, {{"v", value::string("d")}})});
  REQUIRE(s.rows() == "1@db1=a 2@db1=b 1@db2=c 2@db2=d ");
  apply_stats st = s.w.apply({s.truncate("db1", 50)});
  CHECK(st.truncates_applied == 1);
  CHECK(st.deleted == 1);
  CHECK(st.tombstones == 1);
  // db1's row below the truncate is gone, its newer row and all of db2's stay.
  CHECK(s.rows() == "2@db1=b 1@db2=c 2@db2=d ");
  // The tombstone is the shard's, not the table's.
  const std::string tombstones = s.w.state.table("tombstones");
  CHECK(s.w.conn.query("SELECT count(*) FROM " + tombstones + " WHERE `key` = ''").at(0, 0) == "0");
  CHECK(s.w.conn.query("SELECT JSON_VALUE(key_json, '$.shard') FROM " + tombstones).at(0, 0) ==
        "db1");
}

TEST_CASE("mariadb writer, shards: a truncate guards its shard's older upserts, no other's") {
  for (const auto dialect : {mdb::sql_dialect::mariadb(), mdb::sql_dialect::mysql8()}) {
    CAPTURE(dialect.mysql);
    shards s;
    s.w.dialect = dialect;
    s.w.apply({s.upsert("1", "db1", 10, {{"v", value::string("a")}}),
               s.upsert("1", "db2", 10, {{"v", value::string("c")}})});
    s.w.apply({s.truncate("db1", 50)});
    // A late upsert of db1 from before its truncate is not brought back; one of db2 as old is
    // written (db2 was not truncated); a newer one of db1 is.
    const apply_stats st = s.w.apply({s.upsert("3", "db1", 40, {{"v", value::string("late")}}),
                                      s.upsert("3", "db2", 40, {{"v", value::string("e")}}),
                                      s.upsert("4", "db1", 70, {{"v", value::string("new")}})});
    CHECK(st.upserted == 2);
    CHECK(st.stale == 1);
    CHECK(s.rows() == "4@db1=new 1@db2=c 3@db2=e ");
    // A later truncate of db2 leaves db1's rows.
    s.w.apply({s.truncate("db2", 80)});
    CHECK(s.rows() == "4@db1=new ");
  }
}

TEST_CASE("mariadb writer, shards: a shard column in another character set is guarded too") {
  // An adopted table's shard column in latin1: the tombstone is keyed by the UTF-8 bytes.
  shards s(
      "id varchar(32) COLLATE utf8mb4_nopad_bin NOT NULL, "
      "shard varchar(64) CHARACTER SET latin1 COLLATE latin1_bin NOT NULL, v varchar(64), "
      "n int, _sluice_csn varbinary(1024) NOT NULL, _sluice_deleted boolean, "
      "PRIMARY KEY (id, shard)");
  const std::string shard =
      "d\xC3\xA9"
      "1";  // dé1
  s.w.apply({s.upsert("1", shard, 10, {{"v", value::string("a")}})});
  s.w.apply({s.truncate(shard, 50)});
  const apply_stats st = s.w.apply({s.upsert("2", shard, 40, {{"v", value::string("late")}}),
                                    s.upsert("3", shard, 60, {{"v", value::string("new")}})});
  CHECK(st.stale == 1);
  CHECK(s.rows() == "3@" + shard + "=new ");
}

TEST_CASE("mariadb writer, shards: with column CSNs a truncate clears its shard's older columns") {
  shards s(
      "id varchar(32) COLLATE utf8mb4_nopad_bin NOT NULL, "
      "shard varchar(64) COLLATE utf8mb4_nopad_bin NOT NULL, v varchar(64), n int, "
      "_sluice_csn varbinary(1024) NOT NULL, _sluice_col_csn json, _sluice_deleted boolean, "
      "PRIMARY KEY (id, shard)");
  for (const std::string shard : {"db1", "db2"}) {
    s.w.apply(
        {s.upsert("1", shard, 10, {{"v", value::string("v" + shard)}, {"n", value::number("1")}})});
    s.w.apply({s.upsert("1", shard, 60, {{"v", value::string("new" + shard)}}, true)});
  }
  // db1's row outlives the truncate at 50 (v at 60), its n (at 10) does not.
  const apply_stats st = s.w.apply({s.truncate("db1", 50)});
  CHECK(st.deleted == 0);
  CHECK(s.rows("v, n") == "1@db1=newdb1,~ 1@db2=newdb2,1 ");
  // A late partial of db1's n older than the truncate stays out; db2's is written.
  s.w.apply({s.upsert("1", "db1", 40, {{"n", value::number("7")}}, true),
             s.upsert("1", "db2", 40, {{"n", value::number("8")}}, true)});
  CHECK(s.rows("v, n") == "1@db1=newdb1,~ 1@db2=newdb2,8 ");
}

}  // namespace
}  // namespace sluice
