#include <doctest/doctest.h>

#include "core/catalog/table_catalog.h"
#include "core/merge/merge_engine.h"
#include "core/model/row_key.h"
#include "sinks/plan/table_planner.h"
#include "sinks/postgres/sql/sql_fragments.h"
#include "sinks/postgres/sql/write_sql.h"

// The shards of a logical table (ByLogicalTableRouter) in the sink: which plans are shards,
// which truncates are confined to their shard or refused, and the SQL that scopes them.

namespace sluice {
namespace {

struct shard_world {
  table_catalog catalog;
  merge_engine merger;
  apply_options options;
  table_entry* db1 = catalog.intern(table_name{"db1", "public", "orders"});

  shard_world() {
    options.connector = "test";
    options.shard_columns = {"Shard"};
  }

  static row_key key(std::vector<std::string> columns, std::vector<value> values) {
    auto k = make_row_key(std::move(columns), std::move(values));
    REQUIRE(k.ok());
    return k.value();
  }
  change upsert(int id, int64_t n, const std::string& shard) {
    change c;
    c.table = db1;
    c.key = key({"id", "Shard"}, {value::number(std::to_string(id)), value::string(shard)});
    c.after = {{"id", value::number(std::to_string(id))}, {"Shard", value::string(shard)}};
    c.seq = csn_builder().add(n).build();
    return c;
  }
  change truncate(int64_t n, const std::string& shard) {
    change c;
    c.op = op_kind::truncate;
    c.table = db1;
    if (!shard.empty()) c.key = key({"Shard"}, {value::string(shard)});
    c.seq = csn_builder().add(n).build();
    return c;
  }
};

TEST_CASE("a shard's plan names its shard column, and its truncate is confined to it") {
  shard_world w;
  table_planner planner(w.options);
  std::vector<dead_letter> rejects;
  const merged_batch batch = w.merger.merge({w.upsert(1, 1, "db1"), w.truncate(2, "db1")});
  REQUIRE(batch.tables.size() == 1);
  CHECK(batch.tables[0].truncate_scope.values.at(0).text == "db1");
  const std::vector<table_plan> plans = planner.plan(batch, rejects);
  CHECK(rejects.empty());
  REQUIRE(plans.size() == 1);
  CHECK(plans[0].shard_column == "shard");  // the target's name, folded
  CHECK(plans[0].truncate);
  CHECK(plans[0].truncate_column == "shard");

  // A truncate alone still knows its shard.
  const merged_batch alone = w.merger.merge({w.truncate(3, "db1")});
  const std::vector<table_plan> only = planner.plan(alone, rejects);
  REQUIRE(only.size() == 1);
  CHECK(only[0].shard_column == "shard");
  CHECK(only[0].truncate_column == "shard");
}

TEST_CASE("a truncate that could reach other shards' rows is refused, its rows still written") {
  shard_world w;
  table_planner planner(w.options);
  std::vector<dead_letter> rejects;
  // Unscoped, while its rows are a shard's.
  const merged_batch batch = w.merger.merge({w.upsert(1, 1, "db1"), w.truncate(2, "")});
  std::vector<table_plan> plans = planner.plan(batch, rejects);
  REQUIRE(plans.size() == 1);
  CHECK_FALSE(plans[0].truncate);
  CHECK(plans[0].rejected == std::vector<uint8_t>{0});
  REQUIRE(rejects.size() == 1);
  CHECK(rejects[0].reason.find("refused rather than remove every shard's rows") !=
        std::string::npos);

  // Two truncates of one source naming different shards, in either order.
  for (bool swap : {false, true}) {
    rejects.clear();
    std::vector<change> changes{w.truncate(2, "db1"), w.truncate(3, "db2")};
    if (swap) std::swap(changes[0], changes[1]);
    const merged_batch two = w.merger.merge(std::move(changes));
    CHECK(two.tables[0].truncate_scopes_differ);
    plans = planner.plan(two, rejects);
    REQUIRE(plans.size() == 1);
    CHECK_FALSE(plans[0].truncate);
    REQUIRE(rejects.size() == 1);
    CHECK(rejects[0].reason.find("name different shards") != std::string::npos);
  }
}

TEST_CASE("without shard columns configured a plan is an ordinary table's") {
  shard_world w;
  w.options.shard_columns.clear();
  table_planner planner(w.options);
  std::vector<dead_letter> rejects;
  const std::vector<table_plan> plans =
      planner.plan(w.merger.merge({w.upsert(1, 1, "db1")}), rejects);
  REQUIRE(plans.size() == 1);
  CHECK(plans[0].shard_column.empty());
}

TEST_CASE("a shard's truncate removes that shard's older rows and tombstones the shard alone") {
  const write_sql_context ctx{R"("sluice"."tombstones")", false, {}};
  const std::string sql = shard_truncate_sql({"shop", "orders"}, "shard", true, ctx);
  CHECK(sql ==
        R"(WITH deleted AS (DELETE FROM "shop"."orders" AS d WHERE d."shard" = $4 AND )"
        R"((d."_sluice_csn" IS NULL OR d."_sluice_csn" < $3::bytea) RETURNING 1), )"
        R"(tombstoned AS (INSERT INTO "sluice"."tombstones" AS t (target_schema, )"
        R"(target_table, key, key_json, csn, deleted_at) SELECT $1, $2, $5::bytea, )"
        R"(CAST($6::text AS jsonb), $3::bytea, now() WHERE $4::text IS NOT NULL ON CONFLICT )"
        R"((target_schema, target_table, key) DO UPDATE SET csn = EXCLUDED.csn, key_json = )"
        R"(EXCLUDED.key_json, deleted_at = EXCLUDED.deleted_at WHERE t.csn < EXCLUDED.csn )"
        R"(RETURNING 1) SELECT (SELECT count(*) FROM deleted), (SELECT count(*) FROM tombstoned))");
  // No table-wide tombstone: other shards' upserts are not held back.
  CHECK(sql.find("''::bytea") == std::string::npos);
  // Without the table, the tombstone alone.
  const std::string none = shard_truncate_sql({"shop", "orders"}, "shard", false, ctx);
  CHECK(none.find("DELETE") == std::string::npos);
  CHECK(none.find("SELECT 0::bigint") != std::string::npos);
  // Soft deletes mark the shard's rows.
  const write_sql_context soft{ctx.tombstones, true, {}};
  CHECK(shard_truncate_sql({"shop", "orders"}, "shard", true, soft)
            .find(R"(SET "_sluice_deleted" = true, "_sluice_csn" = $3::bytea, )") !=
        std::string::npos);
}

TEST_CASE("a shard's upserts are guarded by its shard's tombstone, keyed as row_key keys it") {
  // The SQL form of the shard's canonical key is the one the truncate's tombstone is written
  // with (row_key's canonical bytes of the shard column alone).
  const row_key k = shard_world::key({"shard"}, {value::string("")});
  std::string hex;
  for (unsigned char c : k.canonical) {
    static constexpr char digits[] = "0123456789abcdef";
    hex.push_back(digits[c >> 4]);
    hex.push_back(digits[c & 0x0f]);
  }
  CHECK(sql::shard_key("x") == "(decode('" + hex.substr(0, 2) +
                                   "', 'hex') || convert_to(x, 'UTF8') || decode('" +
                                   hex.substr(2) + "', 'hex'))");
  const write_sql_context plain{R"("sluice"."tombstones")", false, {}};
  const write_sql_context sharded{plain.tombstones, false, false, "shard"};
  const std::string without = sql::no_newer_tombstone(plain, "EXCLUDED._sluice_key", "c");
  const std::string with = sql::no_newer_tombstone(sharded, "EXCLUDED._sluice_key", "c");
  CHECK(without.find("ts.key") == std::string::npos);
  CHECK(with.find("ts.key = " + sql::shard_key(R"(EXCLUDED."shard"::text)")) != std::string::npos);
  CHECK(sql::with_tombstone(sharded, "src")
            .find("ts.key = " + sql::shard_key(R"(s."shard"::text)")) != std::string::npos);
  // The table's own tombstone still counts.
  CHECK(with.find("tt.key = ''::bytea") != std::string::npos);
}

}  // namespace
}  // namespace sluice
