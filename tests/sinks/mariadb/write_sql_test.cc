#include "sinks/mariadb/sql/write_sql.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sinks/mariadb/sql/column_csn_sql.h"
#include "sinks/mariadb/sql/sql_fragments.h"

namespace sluice {
namespace {

struct fixture {
  mdb::column_def id{"id", "varchar(32)", "utf8mb4_nopad_bin", false};
  mdb::column_def v{"v", "varchar(64)", "utf8mb4_nopad_bin", true};
  mdb::column_def b{"b", "varbinary(16)", "", true};
  std::vector<const mdb::column_def*> key{&id};
  std::vector<const mdb::column_def*> cols{&v, &b};
  mdb::write_sql_context ctx{"`sluice`.`tombstones`", false, mdb::sql_dialect::mariadb(), false};
  target_table table{"shop", "orders"};
  mdb::stage_def stage = mdb::make_stage(mdb::stage_kind::upsert, key, true, cols);
};

std::string odku(const std::string& sql) {
  const std::string marker = " ON DUPLICATE KEY UPDATE ";
  const size_t at = sql.find(marker);
  REQUIRE(at != std::string::npos);
  return sql.substr(at + marker.size());
}

TEST_CASE("mariadb write sql: the stage keeps keys typed and values permissive") {
  fixture f;
  CHECK(f.stage.table.rfind("sluice_stage_u_", 0) == 0);
  CHECK(mdb::create_stage_sql(f.stage, mdb::sql_dialect::mariadb()) ==
        "CREATE TEMPORARY TABLE IF NOT EXISTS `" + f.stage.table +
            "` (`_sluice_key` longblob, `_sluice_row_csn` varbinary(1024), `_sluice_k0` "
            "varchar(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin, `_sluice_v0` longtext "
            "CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin, `_sluice_v1` longblob) "
            "ENGINE=Aria TRANSACTIONAL=0");
  // MySQL 8 has no Aria, and can refuse a non-transactional table in a transaction
  // (enforce_gtid_consistency): its default engine.
  CHECK(mdb::create_stage_sql(f.stage, mdb::sql_dialect::mysql8()).find("ENGINE") ==
        std::string::npos);
  // Where the server refuses it: its default engine.
  const std::string plain = mdb::create_stage_sql(f.stage, mdb::sql_dialect::mariadb(), true);
  CHECK(plain.find("ENGINE") == std::string::npos);
  CHECK(plain.ends_with("`_sluice_v1` longblob)"));
  CHECK(mdb::fill_stage_sql(f.stage) == "INSERT INTO `" + f.stage.table +
                                            "` (`_sluice_key`, `_sluice_row_csn`, `_sluice_k0`, "
                                            "`_sluice_v0`, `_sluice_v1`) VALUES (?, ?, ?, ?, ?)");
  // Another definition is another table; the same is the same.
  const mdb::stage_def untyped = mdb::make_stage(mdb::stage_kind::upsert, f.key, false, f.cols);
  CHECK(untyped.table != f.stage.table);
  CHECK(mdb::make_stage(mdb::stage_kind::upsert, f.key, true, f.cols).table == f.stage.table);
  CHECK(mdb::make_stage(mdb::stage_kind::remove, f.key, true, {}).columns.size() == 4);
}

TEST_CASE("mariadb write sql: the upsert assigns the CSN last, after every guard that reads it") {
  fixture f;
  const std::string sql = mdb::upsert_sql(f.table, f.stage, f.key, f.cols, f.ctx);
  CHECK(
      sql.rfind("INSERT INTO `shop`.`orders` (`id`, `v`, `b`, `_sluice_csn`) SELECT s._sluice_k0, "
                "s._sluice_v0, s._sluice_v1, s._sluice_row_csn FROM (SELECT s.*, "
                "IF(s._sluice_tomb_table IS NULL OR s._sluice_tomb_key > s._sluice_tomb_table, "
                "s._sluice_tomb_key, s._sluice_tomb_table) AS _sluice_tomb FROM (SELECT s.*, "
                "(SELECT MAX(tb.csn) FROM `sluice`.`tombstones` tb WHERE tb.target_schema = ? AND "
                "tb.target_table = ? AND tb.key_hash = UNHEX(SHA2(s._sluice_key, 256))) AS "
                "_sluice_tomb_key, (SELECT MAX(tb.csn) FROM `sluice`.`tombstones` tb WHERE "
                "tb.target_schema = ? AND tb.target_table = ? AND tb.key_hash = UNHEX(SHA2('', "
                "256))) AS _sluice_tomb_table FROM `",
                0) == 0);
  const std::string updates = odku(sql);
  CHECK(updates.rfind("`v` = IF((@sluice_found := COALESCE(@sluice_found, 0) + 1) IS NULL", 0) ==
        0);
  const size_t csn = updates.find("`_sluice_csn` = IF(");
  REQUIRE(csn != std::string::npos);
  // Nothing is assigned after the CSN.
  CHECK(updates.substr(csn) ==
        "`_sluice_csn` = IF((`_sluice_csn` IS NULL OR `_sluice_csn` < s._sluice_row_csn), "
        "s._sluice_row_csn, `_sluice_csn`)");
  // Every column reads the incoming value as its type (VALUES()) on MariaDB.
  CHECK(updates.find("VALUES(`b`)") != std::string::npos);
}

TEST_CASE("mariadb write sql: new rows go straight in, unguarded, as the upsert would make them") {
  fixture f;
  CHECK(mdb::insert_new_rows_sql(f.table, f.key, f.cols, f.ctx) ==
        "INSERT INTO `shop`.`orders` (`id`, `v`, `b`, `_sluice_csn`) VALUES (?, ?, ?, ?)");
  f.ctx.updated_at = true;
  f.ctx.soft_delete = true;
  const std::string sql = mdb::insert_new_rows_sql(f.table, f.key, f.cols, f.ctx);
  CHECK(sql ==
        "INSERT INTO `shop`.`orders` (`id`, `v`, `b`, `_sluice_csn`, `_sluice_updated_at`, "
        "`_sluice_deleted`) VALUES (?, ?, ?, ?, UTC_TIMESTAMP(6), FALSE)");
  // No ON DUPLICATE KEY UPDATE and no IGNORE: a key the table holds must fail it (1062).
  CHECK(sql.find("DUPLICATE") == std::string::npos);
  CHECK(sql.find("IGNORE") == std::string::npos);
  CHECK(mdb::any_tombstone_sql(f.ctx) ==
        "SELECT EXISTS (SELECT 1 FROM `sluice`.`tombstones` WHERE target_schema = ? AND "
        "target_table = ?)");
}

TEST_CASE("mariadb write sql: soft deletes and _sluice_updated_at keep their places") {
  fixture f;
  f.ctx.soft_delete = true;
  f.ctx.updated_at = true;
  const std::string updates = odku(mdb::upsert_sql(f.table, f.stage, f.key, f.cols, f.ctx));
  // _sluice_updated_at first (its guard compares values before they change), then the
  // columns, _sluice_deleted, the CSN last.
  const size_t u = updates.find("`_sluice_updated_at` = ");
  const size_t v = updates.find("`v` = ");
  const size_t d = updates.find("`_sluice_deleted` = ");
  const size_t c = updates.find("`_sluice_csn` = IF(");
  CHECK(u == 0);
  CHECK(u < v);
  CHECK(v < d);
  CHECK(d < c);
  CHECK(updates.find("AND `_sluice_deleted`))") != std::string::npos);  // takes all at a tie
}

TEST_CASE("mariadb write sql: the MySQL 8 dialect reads incoming values from the SELECT") {
  fixture f;
  f.ctx.dialect = mdb::sql_dialect::mysql8();
  const std::string updates = odku(mdb::upsert_sql(f.table, f.stage, f.key, f.cols, f.ctx));
  CHECK(updates.find("VALUES(") == std::string::npos);
  CHECK(updates.find("IF((`_sluice_csn` IS NULL OR `_sluice_csn` < s._sluice_row_csn), "
                     "s._sluice_v0, ") != std::string::npos);
  const mdb::stage_def remove = mdb::make_stage(mdb::stage_kind::remove, f.key, true, {});
  const std::string tomb = mdb::tombstones_sql(remove, f.ctx);
  CHECK(tomb.find("VALUES(") == std::string::npos);
  CHECK(tomb.find("csn = IF(csn IS NULL OR csn < s._sluice_row_csn, s._sluice_row_csn, csn)") !=
        std::string::npos);
  f.ctx.dialect = mdb::sql_dialect::mariadb();
  CHECK(mdb::tombstones_sql(remove, f.ctx)
            .find("csn = IF(csn IS NULL OR csn < VALUES(`csn`), VALUES(`csn`), csn)") !=
        std::string::npos);
}

TEST_CASE("mariadb write sql: deletes join the stage by key, truncates compare with a literal") {
  fixture f;
  const mdb::stage_def remove = mdb::make_stage(mdb::stage_kind::remove, f.key, true, {});
  CHECK(mdb::delete_rows_sql(f.table, remove, f.key, f.ctx) ==
        "DELETE d FROM `shop`.`orders` AS d JOIN `" + remove.table +
            "` AS s ON d.`id` = s._sluice_k0 WHERE (d.`_sluice_csn` IS NULL OR d.`_sluice_csn` < "
            "s._sluice_row_csn)");
  const std::string csn = mdb::sql::hex_literal(std::string("\x01\xff", 2));
  CHECK(csn == "X'01FF'");
  CHECK(mdb::truncate_rows_sql(f.table, csn, false, f.ctx) ==
        "DELETE FROM `shop`.`orders` WHERE (`_sluice_csn` IS NULL OR `_sluice_csn` < X'01FF')");
  f.ctx.soft_delete = true;
  CHECK(mdb::truncate_rows_sql(f.table, csn, false, f.ctx).rfind("UPDATE", 0) == 0);
  CHECK(mdb::truncate_rows_sql(f.table, csn, true, f.ctx).rfind("DELETE", 0) == 0);  // keyless
}

TEST_CASE("mariadb write sql: an append skips its own position only, never with INSERT IGNORE") {
  fixture f;
  const mdb::stage_def stage = mdb::make_stage(mdb::stage_kind::append, {}, false, f.cols);
  const std::string once =
      mdb::append_sql(f.table, stage, f.cols, mdb::append_once::position, f.ctx);
  CHECK(once.find("IGNORE") == std::string::npos);
  CHECK(once.find("`_sluice_kafka_topic` <=> s._sluice_topic AND `_sluice_kafka_partition` <=> "
                  "s._sluice_partition AND `_sluice_kafka_offset` <=> s._sluice_offset AND "
                  "`_sluice_kafka_index` <=> s._sluice_index") != std::string::npos);
  CHECK(mdb::append_sql(f.table, stage, f.cols, mdb::append_once::none, f.ctx)
            .find("ON DUPLICATE KEY") == std::string::npos);
}

TEST_CASE("mariadb write sql: per-column CSNs are flagged once, stamped after, the CSN last") {
  fixture f;
  const mdb::stage_def stage = mdb::make_stage(mdb::stage_kind::versioned, f.key, true, f.cols);
  const std::string updates =
      odku(mdb::upsert_versioned_sql(f.table, stage, f.key, f.cols, f.cols, f.ctx));
  const size_t v = updates.find("`v` = ");
  const size_t b = updates.find("`b` = ");
  const size_t map = updates.find("`_sluice_col_csn` = ");
  const size_t csn = updates.find("`_sluice_csn` = IF(@sluice_n0 OR @sluice_n1");
  CHECK(v == 0);
  CHECK(v < b);
  CHECK(b < map);
  CHECK(map < csn);
  CHECK(csn != std::string::npos);
  CHECK(updates.find("IF(@sluice_n0 := COALESCE(") != std::string::npos);
  CHECK(updates.find("JSON_SET(IF(`_sluice_col_csn` IS NULL, JSON_OBJECT('v', "
                     "LOWER(HEX(`_sluice_csn`)), 'b', LOWER(HEX(`_sluice_csn`))), "
                     "`_sluice_col_csn`), '$.\"v\"', IF(@sluice_n0, ") != std::string::npos);
}

TEST_CASE("mariadb write sql: literals and JSON paths survive quotes and backslashes") {
  CHECK(mdb::sql::quote_literal("it's") == "'it''s'");
  CHECK(mdb::sql::quote_literal("a\\b") == "_utf8mb4 X'615C62'");
  CHECK(mdb::sql::json_path("we\"ird") == "_utf8mb4 X'242E2277655C2269726422'");
  CHECK(mdb::sql::json_path("plain") == "'$.\"plain\"'");
  CHECK(mdb::is_binary_type("varbinary(16)"));
  CHECK(mdb::is_binary_type("blob"));
  CHECK(!mdb::is_binary_type("binaryish"));
  CHECK(!mdb::is_binary_type("bigint"));
}

}  // namespace
}  // namespace sluice
