#include "sinks/postgres/sql/write_sql.h"

#include <doctest/doctest.h>

#include "sinks/postgres/plan/table_ddl.h"

namespace sluice {
namespace {

const write_sql_context ctx{R"("sluice"."tombstones")", false};

TEST_CASE("the upsert is one guarded MERGE over unnest arrays, values only as parameters") {
  const column_def id{"id", "numeric"}, name{"name", "text"};
  const std::string sql = upsert_sql({"shop", "orders"}, {&id}, {&name}, ctx);
  auto has = [&](const std::string& part) {
    CAPTURE(part);
    CHECK(sql.find(part) != std::string::npos);
  };
  CHECK(
      sql.rfind(R"(MERGE INTO "shop"."orders" AS d USING (SELECT CAST(s."id" AS numeric) AS "id", )"
                R"(CAST(s."name" AS text) AS "name", s._sluice_row_csn AS "_sluice_csn", )"
                R"(now() AS "_sluice_updated_at", s._sluice_key AS _sluice_key )"
                R"(FROM unnest($3::bytea[], $4::bytea[], $5::text[], $6::text[]) )"
                R"(AS s(_sluice_key, _sluice_row_csn, "id", "name")) AS excluded )",
                0) == 0);
  has(R"(ON d."id" = EXCLUDED."id" WHEN MATCHED AND ((d."_sluice_csn" IS NULL OR )"
      R"(d."_sluice_csn" < EXCLUDED."_sluice_csn") OR (d."_sluice_csn" = EXCLUDED."_sluice_csn" )");
  // At equal CSN each column keeps the greater value, as the merge does.
  has(R"((ROW(EXCLUDED."name" IS NOT NULL, EXCLUDED."name"::text COLLATE "C") > )"
      R"(ROW(d."name" IS NOT NULL, d."name"::text COLLATE "C")))");
  has(R"(THEN UPDATE SET "name" = CASE WHEN d."_sluice_csn" = EXCLUDED."_sluice_csn" AND NOT )");
  // The key's tombstone, for rows the table does not hold: one probe per row, only when the
  // table has tombstones at all.
  has(R"(WHEN NOT MATCHED AND (coalesce(GREATEST(CASE WHEN EXISTS (SELECT 1 FROM )"
      R"("sluice"."tombstones" te WHERE te.target_schema = $1 AND te.target_table = $2) THEN )"
      R"((SELECT tk.csn FROM "sluice"."tombstones" tk WHERE tk.target_schema = $1 AND )"
      R"(tk.target_table = $2 AND tk.key = EXCLUDED._sluice_key) END, (SELECT tt.csn FROM )"
      R"("sluice"."tombstones" tt WHERE tt.target_schema = $1 AND tt.target_table = $2 AND )"
      R"(tt.key = ''::bytea)), ''::bytea) <= EXCLUDED."_sluice_csn") )"
      R"(THEN INSERT ("id", "name", "_sluice_csn", "_sluice_updated_at") )"
      R"(VALUES (EXCLUDED."id", EXCLUDED."name", EXCLUDED."_sluice_csn", )"
      R"(EXCLUDED."_sluice_updated_at"))");
  CHECK(sql.find("ON CONFLICT") == std::string::npos);
}

TEST_CASE("update mode: the upsert updates under the same guard, inserts nothing, counts misses") {
  const column_def id{"id", "numeric"}, name{"name", "text"};
  const write_sql_context update{R"("sluice"."tombstones")", false, true};
  const std::string sql = upsert_sql({"shop", "orders"}, {&id}, {&name}, update);
  CHECK(sql.rfind(R"(WITH excluded AS (SELECT CAST(s."id" AS numeric) AS "id", )", 0) == 0);
  CHECK(sql.find(R"(updated AS (UPDATE "shop"."orders" AS d SET "name" = CASE WHEN )") !=
        std::string::npos);
  CHECK(sql.find(R"(FROM excluded WHERE d."id" = EXCLUDED."id" AND ((d."_sluice_csn" IS NULL )") !=
        std::string::npos);
  CHECK(sql.find("INSERT") == std::string::npos);
  CHECK(sql.find("MERGE") == std::string::npos);
  // Missing: no row of the key, and no newer tombstone (a deleted row's change is stale).
  CHECK(sql.find(R"(SELECT (SELECT count(*) FROM updated), (SELECT count(*) FROM excluded WHERE )"
                 R"(NOT EXISTS (SELECT 1 FROM "shop"."orders" AS d WHERE d."id" = EXCLUDED."id") )"
                 R"(AND (coalesce(GREATEST()") != std::string::npos);
}

TEST_CASE("an append writes each source position once, whatever is replayed") {
  const column_def what{"what", "text"};
  const std::string sql = append_sql({"s", "events"}, {&what});
  CHECK(sql.find(R"("_sluice_kafka_offset", "_sluice_kafka_index") SELECT )") != std::string::npos);
  CHECK(sql.ends_with(R"( ON CONFLICT ("_sluice_kafka_index", "_sluice_kafka_offset", )"
                      R"("_sluice_kafka_partition", "_sluice_kafka_topic") DO NOTHING)"));
  CHECK(append_sql({"s", "events"}, {&what}, {}, append_once::any)
            .ends_with(") ON CONFLICT DO NOTHING"));
  CHECK(append_sql({"s", "events"}, {&what}, {}, append_once::none).find("ON CONFLICT") ==
        std::string::npos);
  CHECK(position_index_sql({"s", "events"}) ==
        R"(CREATE UNIQUE INDEX ON "s"."events" ("_sluice_kafka_index", "_sluice_kafka_offset", )"
        R"("_sluice_kafka_partition", "_sluice_kafka_topic"))");
}

TEST_CASE("a staged source replaces the unnest arrays, the statement is otherwise the same") {
  const column_def id{"id", "numeric"}, name{"name", "text"};
  const std::string staged =
      R"(pg_temp.sluice_stage_b2t2 AS s(_sluice_key, _sluice_row_csn, "id", "name"))";
  const std::string sql = upsert_sql({"shop", "orders"}, {&id}, {&name}, ctx, staged);
  CHECK(sql.find("unnest") == std::string::npos);
  CHECK(sql.find("AS _sluice_key FROM " + staged + ") AS excluded ON") != std::string::npos);
  const std::string del = delete_sql({"s", "t"}, {&id}, true, ctx, nullptr, staged);
  CHECK(del.rfind("WITH s AS (SELECT *, (SELECT true FROM ", 0) == 0);
  CHECK(del.find("AS _sluice_tombstoned FROM " + staged + "), deleted AS") != std::string::npos);
  CHECK(unnest_source(3, delete_lead(), {&id}) ==
        R"(unnest($3::bytea[], $4::bytea[], $5::text[], $6::text[]) )"
        R"(AS s(_sluice_key, _sluice_row_csn, _sluice_key_json, "id"))");
}

TEST_CASE("soft deletes: the upsert clears the mark and wins over a delete at equal CSN") {
  const column_def id{"id", "numeric"};
  const write_sql_context soft{ctx.tombstones, true};
  const std::string sql = upsert_sql({"s", "t"}, {&id}, {}, soft);
  CHECK(sql.find(R"("_sluice_deleted" = false)") != std::string::npos);
  CHECK(sql.find(R"(OR (d."_sluice_csn" = EXCLUDED."_sluice_csn" AND d."_sluice_deleted"))") !=
        std::string::npos);
  const std::string del = delete_sql({"s", "t"}, {&id}, true, soft);
  CHECK(del.find(R"(UPDATE "s"."t" AS d SET "_sluice_deleted" = true)") != std::string::npos);
  CHECK(del.find("DELETE") == std::string::npos);
}

TEST_CASE("the delete removes only rows older than the delete and raises the tombstone") {
  const column_def a{"a", "text"}, b{"b", "bigint"};
  const std::string sql = delete_sql({"s", "t"}, {&a, &b}, true, ctx);
  CHECK(sql ==
        R"(WITH s AS (SELECT *, (SELECT true FROM "sluice"."tombstones" t WHERE )"
        R"(t.target_schema = $1 AND t.target_table = $2 AND t.key = s._sluice_key) IS NOT NULL )"
        R"(AS _sluice_tombstoned FROM unnest($3::bytea[], $4::bytea[], $5::text[], $6::text[], )"
        R"($7::text[]) AS s(_sluice_key, _sluice_row_csn, _sluice_key_json, "a", "b")), )"
        R"(deleted AS (DELETE FROM "s"."t" AS d USING s WHERE d."a" = CAST(s."a" AS text) )"
        R"(AND d."b" = CAST(s."b" AS bigint) AND (d."_sluice_csn" IS NULL OR )"
        R"(d."_sluice_csn" < s._sluice_row_csn) RETURNING 1), )"
        R"(added AS (INSERT INTO "sluice"."tombstones" (target_schema, target_table, key, )"
        R"(key_json, csn, deleted_at) SELECT $1, $2, s._sluice_key, )"
        R"(CAST(s._sluice_key_json AS jsonb), s._sluice_row_csn, now() FROM s )"
        R"(WHERE NOT s._sluice_tombstoned RETURNING 1), )"
        R"(raised AS (INSERT INTO "sluice"."tombstones" AS t (target_schema, target_table, )"
        R"(key, key_json, csn, deleted_at) SELECT $1, $2, s._sluice_key, )"
        R"(CAST(s._sluice_key_json AS jsonb), s._sluice_row_csn, now() FROM s )"
        R"(WHERE s._sluice_tombstoned )"
        R"(ON CONFLICT (target_schema, target_table, key) DO UPDATE SET csn = EXCLUDED.csn, )"
        R"(key_json = EXCLUDED.key_json, deleted_at = EXCLUDED.deleted_at )"
        R"(WHERE t.csn < EXCLUDED.csn RETURNING 1) )"
        R"(SELECT (SELECT count(*) FROM deleted), )"
        R"((SELECT count(*) FROM added) + (SELECT count(*) FROM raised))");
  // Deleting from a table that does not exist yet only records the tombstones.
  const std::string tomb_only = delete_sql({"s", "t"}, {&a, &b}, false, ctx);
  CHECK(tomb_only.find("DELETE") == std::string::npos);
  CHECK(tomb_only.find("added AS (INSERT") != std::string::npos);
  CHECK(tomb_only.find("raised AS (INSERT") != std::string::npos);
}

TEST_CASE("a truncate removes older rows and leaves a table-wide tombstone") {
  const std::string sql = truncate_sql({"s", "t"}, true, false, ctx);
  CHECK(sql.find(R"(DELETE FROM "s"."t" AS d WHERE (d."_sluice_csn" IS NULL OR )"
                 R"(d."_sluice_csn" < $3::bytea))") != std::string::npos);
  CHECK(sql.find("SELECT $1, $2, ''::bytea, NULL::jsonb, $3::bytea, now()") != std::string::npos);
}

TEST_CASE("identifiers are quoted whatever they contain") {
  const column_def id{"i\"d; --", "numeric"}, col{"ü\"; DROP TABLE x; --", "text"};
  const std::string sql = upsert_sql({"sch\"ema", "ta;ble"}, {&id}, {&col}, ctx);
  CHECK(sql.find(R"(MERGE INTO "sch""ema"."ta;ble" AS d )") != std::string::npos);
  CHECK(sql.find(R"(INSERT ("i""d; --", "ü""; DROP TABLE x; --", )") != std::string::npos);
  CHECK(sql.find(R"(ON d."i""d; --" = EXCLUDED."i""d; --" WHEN)") != std::string::npos);
  const std::string append = append_sql({"s", "t\"x"}, {&col});
  CHECK(append.find(R"(INSERT INTO "s"."t""x" ("ü""; DROP TABLE x; --", "_sluice_op")") !=
        std::string::npos);
}

TEST_CASE("auto-create types columns from JSON value kinds and keys the primary key") {
  CHECK(sql_type_for(value_kind::number, false) == "numeric");
  CHECK(sql_type_for(value_kind::string, false) == "text");
  CHECK(sql_type_for(value_kind::boolean, false) == "boolean");
  CHECK(sql_type_for(value_kind::json, false) == "jsonb");
  CHECK(sql_type_for(value_kind::null, false) == "text");   // only nulls so far
  CHECK(sql_type_for(value_kind::number, true) == "text");  // numbers and strings mixed
  const table_definition def{{"shop", "Orders"},
                             {{"id", "numeric"}},
                             {{"name", "text"}, {"_sluice_csn", "bytea NOT NULL"}}};
  CHECK(create_table_sql(def) ==
        R"(CREATE TABLE IF NOT EXISTS "shop"."Orders" ("id" numeric, "name" text, )"
        R"("_sluice_csn" bytea NOT NULL, PRIMARY KEY ("id")))");
  CHECK(add_columns_sql({"shop", "orders"}, {{"a", "numeric"}, {"b", "jsonb"}}) ==
        R"(ALTER TABLE "shop"."orders" ADD COLUMN IF NOT EXISTS "a" numeric, )"
        R"(ADD COLUMN IF NOT EXISTS "b" jsonb)");
}

}  // namespace
}  // namespace sluice
