// The SQL text of insert.mode update and of ByLogicalTableRouter's shard tables on MariaDB
// (sinks/mariadb/sql/write_sql.h, sql_fragments.h); their behaviour against a server is
// table_writer_modes_integration_test.cc's.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/model/row_key.h"
#include "sinks/mariadb/sql/column_csn_sql.h"
#include "sinks/mariadb/sql/sql_fragments.h"
#include "sinks/mariadb/sql/write_sql.h"

namespace sluice {
namespace {

struct fixture {
  mdb::column_def id{"id", "varchar(32)", "utf8mb4_nopad_bin", false};
  mdb::column_def shard{"shard", "varchar(64)", "utf8mb4_nopad_bin", false};
  mdb::column_def v{"v", "varchar(64)", "utf8mb4_nopad_bin", true};
  std::vector<const mdb::column_def*> key{&id, &shard};
  std::vector<const mdb::column_def*> cols{&v};
  mdb::write_sql_context ctx{"`sluice`.`tombstones`", false, mdb::sql_dialect::mariadb(), false};
  target_table table{"shop", "orders"};
  mdb::stage_def stage = mdb::make_stage(mdb::stage_kind::upsert, key, true, cols);
};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST_CASE("mariadb write sql: update mode upserts only the rows the table holds") {
  fixture f;
  const std::string upsert = mdb::upsert_sql(f.table, f.stage, f.key, f.cols, f.ctx);
  CHECK(upsert.find("EXISTS") == std::string::npos);
  f.ctx.update_only = true;
  const std::string held =
      " AND EXISTS (SELECT 1 FROM `shop`.`orders` AS d WHERE d.`id` = s._sluice_k0 AND "
      "d.`shard` = s._sluice_k1) ON DUPLICATE KEY UPDATE ";
  const std::string update = mdb::upsert_sql(f.table, f.stage, f.key, f.cols, f.ctx);
  CHECK(update.find(held) != std::string::npos);
  // The rest is the upsert's: the same guards, the CSN still last.
  CHECK(update.substr(update.find(" ON DUPLICATE KEY UPDATE ")) ==
        upsert.substr(upsert.find(" ON DUPLICATE KEY UPDATE ")));
  const std::vector<const mdb::column_def*> all{&f.v};
  CHECK(mdb::upsert_versioned_sql(f.table, f.stage, f.key, f.cols, all, f.ctx).find(held) !=
        std::string::npos);
  // An update makes no row: a soft-deleted one is not held.
  f.ctx.soft_delete = true;
  CHECK(mdb::upsert_sql(f.table, f.stage, f.key, f.cols, f.ctx)
            .find("d.`shard` = s._sluice_k1 AND d.`_sluice_deleted` IS NOT TRUE)") !=
        std::string::npos);
  // The missing rows: those no tombstone refuses whose key the table lacks, whatever their
  // soft delete says.
  const std::string missing = mdb::missing_rows_sql(f.table, f.stage, f.key, f.ctx);
  CHECK(missing.rfind("SELECT COUNT(*) FROM (SELECT s.*, ", 0) == 0);
  CHECK(missing.find("WHERE (s._sluice_tomb IS NULL OR s._sluice_tomb <= s._sluice_row_csn) AND "
                     "NOT EXISTS (SELECT 1 FROM `shop`.`orders` AS d WHERE d.`id` = "
                     "s._sluice_k0 AND d.`shard` = s._sluice_k1)") != std::string::npos);
  CHECK(count(missing, "?") == 4);
}

TEST_CASE("mariadb write sql: a shard table's upsert probes the shard's tombstone too") {
  fixture f;
  CHECK(mdb::sql::tombstone_params(f.ctx) == 4);
  CHECK(count(mdb::upsert_sql(f.table, f.stage, f.key, f.cols, f.ctx), "?") == 4);
  f.ctx.shard_key = 1;
  CHECK(mdb::sql::tombstone_params(f.ctx) == 6);
  const std::string sql = mdb::upsert_sql(f.table, f.stage, f.key, f.cols, f.ctx);
  CHECK(count(sql, "?") == 6);
  // The shard's canonical key, as row_key makes it: kind, text, terminator.
  row_key k{{"shard"}, {value::string("db1")}, {}};
  REQUIRE_FALSE(canonicalize_key(k, {column_class::text}));
  REQUIRE(k.canonical.size() == 6);
  const std::string framing = mdb::sql::shard_key("s._sluice_k1");
  CHECK(framing == "CONCAT(" + mdb::sql::hex_literal(k.canonical.substr(0, 1)) +
                       ", CAST(CONVERT(s._sluice_k1 USING utf8mb4) AS BINARY), " +
                       mdb::sql::hex_literal(k.canonical.substr(4)) + ")");
  CHECK(sql.find("tb.key_hash = UNHEX(SHA2(" + framing + ", 256))) AS _sluice_tomb_shard") !=
        std::string::npos);
  // The newest of the key's, the shard's and the table's.
  CHECK(sql.find("IF(s._sluice_tomb_table IS NULL OR IF(s._sluice_tomb_shard IS NULL OR "
                 "s._sluice_tomb_key > s._sluice_tomb_shard, s._sluice_tomb_key, "
                 "s._sluice_tomb_shard) > s._sluice_tomb_table") != std::string::npos);
}

TEST_CASE("mariadb write sql: a shard's truncate is confined to its rows, bound as a value") {
  fixture f;
  const std::string csn = mdb::sql::hex_literal("\x01\x02");
  CHECK(mdb::truncate_rows_sql(f.table, csn, false, f.ctx, "shard") ==
        "DELETE FROM `shop`.`orders` WHERE (`_sluice_csn` IS NULL OR `_sluice_csn` < X'0102') "
        "AND `shard` = ?");
  f.ctx.soft_delete = true;
  const std::string soft = mdb::truncate_rows_sql(f.table, csn, false, f.ctx, "shard");
  CHECK(soft.rfind("UPDATE `shop`.`orders` SET `_sluice_deleted` = TRUE", 0) == 0);
  CHECK(soft.ends_with(" AND `shard` = ?"));
  f.ctx.soft_delete = false;
  const std::vector<const mdb::column_def*> all{&f.v};
  const std::string clear = mdb::truncate_clear_sql(f.table, all, csn, f.ctx, "shard");
  CHECK(clear.ends_with(" AND `shard` = ?"));
  CHECK(count(clear, "?") == 1);
  CHECK(count(mdb::truncate_clear_sql(f.table, all, csn, f.ctx), "?") == 0);
}

}  // namespace
}  // namespace sluice
