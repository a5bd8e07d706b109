// What a message may not reach, against a real server (CTest label "integration"): sluice's
// state schema and PostgreSQL's own, a target another source already feeds; and a table
// whose DDL fails, which is isolated while the others go on (issue 12).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <pqxx/pqxx>

#include "tests/sinks/pg_world.h"
#include "tests/sinks/test_sink.h"

namespace sluice {
namespace {

using testing::pg_world;

std::string dead_letters(const pg_world& w) {
  return "\"" + w.state + "\".dead_letters";
}

void exec(pg_world& w, const std::string& sql) {
  pqxx::work tx(w.look);
  tx.exec("SET client_min_messages TO warning");
  tx.exec(sql);
  tx.commit();
}

TEST_CASE("a source routed into sluice's state schema or PostgreSQL's is dead-lettered") {
  pg_world w;
  test_sink sink(w.dsn, w.options());
  sink.start();
  const std::string offsets_before =
      w.one("SELECT count(*) FROM information_schema.columns WHERE table_schema = '" + w.state +
            "' AND table_name = 'offsets'")
          .value();
  // A source whose schema is named like the state schema, one named pg_catalog, one
  // information_schema: each would land in that schema under ${schema}.${table}.
  table_entry* own = w.catalog.intern(table_name{"", w.state, "offsets"});
  table_entry* catalog = w.catalog.intern(table_name{"", "pg_catalog", "pg_class"});
  table_entry* info = w.catalog.intern(table_name{"", "information_schema", "tables"});
  table_entry* fine = w.table("orders");
  const apply_stats s = sink.apply(
      w.merge(
          {w.upsert(own, 1, 1, {{"connector", value::string("x")}, {"evil", value::number("1")}}),
           w.upsert(catalog, 1, 1, {{"relname", value::string("x")}}),
           w.upsert(info, 1, 1, {{"table_name", value::string("x")}}),
           w.upsert(fine, 1, 1, {{"name", value::string("ok")}})}),
      {}, {});
  CHECK(s.upserted == 1);
  CHECK(s.rejected == 3);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 1);
  // The state schema's offsets table kept its columns and rows.
  CHECK(w.one("SELECT count(*) FROM information_schema.columns WHERE table_schema = '" + w.state +
              "' AND table_name = 'offsets'") == offsets_before);
  CHECK(w.count("SELECT count(*) FROM \"" + w.state + "\".offsets") == 0);
  CHECK(w.count("SELECT count(*) FROM " + dead_letters(w) + " WHERE kind = 'routing'") == 3);
  CHECK(w.count("SELECT count(*) FROM " + dead_letters(w) +
                " WHERE reason LIKE '%is sluice''s state schema%' AND target_schema = '" + w.state +
                "' AND target_table = 'offsets'") == 1);
  CHECK(w.count("SELECT count(*) FROM " + dead_letters(w) +
                " WHERE reason LIKE '%reserved for PostgreSQL''s catalogs%'") == 1);
  CHECK(w.count("SELECT count(*) FROM " + dead_letters(w) +
                " WHERE reason LIKE '%information_schema%'") == 1);
}

TEST_CASE("two sources folding onto one target are refused across appliers and restarts") {
  pg_world w;
  table_entry* mixed = w.table("Orders");
  table_entry* upper = w.table("ORDERS");
  {
    test_sink lane1(w.dsn, w.options());
    const apply_stats s =
        lane1.apply(w.merge({w.upsert(mixed, 1, 1, {{"v", value::string("a")}})}), {}, {});
    CHECK(s.upserted == 1);
  }
  // Another lane (its own applier, its own cache) sees the other spelling.
  test_sink lane2(w.dsn, w.options());
  const apply_stats s = lane2.apply(w.merge({w.upsert(upper, 2, 1, {{"v", value::string("b")}}),
                                             w.upsert(mixed, 3, 2, {{"v", value::string("c")}})}),
                                    {}, {});
  CHECK(s.upserted == 1);
  CHECK(s.rejected == 1);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 2);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders") + " WHERE id = 2") == 0);
  const auto reason = w.one("SELECT reason FROM " + dead_letters(w) + " WHERE kind = 'routing'");
  REQUIRE(reason);
  CHECK(reason->find(w.source_schema + ".ORDERS folds onto this target") != std::string::npos);
  CHECK(reason->find(w.source_schema + ".Orders already feeds") != std::string::npos);
  CHECK(w.one("SELECT source_table FROM \"" + w.state +
              "\".routes WHERE target_table = 'orders'") == "Orders");

  // Both spellings in one batch of a fresh target: the first by name claims it, whatever lane.
  table_entry* a = w.table("Items");
  table_entry* b = w.table("ITEMS");
  test_sink lane3(w.dsn, w.options());
  const apply_stats both = lane3.apply(w.merge({w.upsert(a, 1, 1, {{"v", value::string("a")}}),
                                                w.upsert(b, 2, 1, {{"v", value::string("b")}})}),
                                       {}, {});
  CHECK(both.upserted == 1);
  CHECK(both.rejected == 1);
  CHECK(w.one("SELECT source_table FROM \"" + w.state + "\".routes WHERE target_table = 'items'") ==
        "ITEMS");
  CHECK(w.count("SELECT count(*) FROM " + w.target("items") + " WHERE id = 2") == 1);
}

TEST_CASE("tables.include and tables.exclude leave tables out of the replica") {
  pg_world w;
  apply_options o = w.options();
  o.tables_include = {w.source_schema + "\\.(orders|items)"};
  o.tables_exclude = {".*\\.items"};
  test_sink sink(w.dsn, o);
  const apply_stats s = sink.apply(
      w.merge({w.upsert(w.table("orders"), 1, 1, {}), w.upsert(w.table("items"), 1, 1, {}),
               w.upsert(w.table("other"), 1, 1, {})}),
      {}, {});
  CHECK(s.upserted == 1);
  CHECK(s.rejected == 0);
  CHECK(w.count("SELECT count(*) FROM pg_tables WHERE schemaname = '" + w.source_schema + "'") ==
        1);
}

TEST_CASE("a table whose DDL fails is dead-lettered alone, and applied once the cause is fixed") {
  pg_world w;
  test_sink sink(w.dsn, w.options());
  // A view holds the name of one target (CREATE TABLE IF NOT EXISTS skips it); another
  // target would need more than PostgreSQL's 1,600 columns (the server refuses, 54011).
  exec(w, "CREATE SCHEMA \"" + w.source_schema + "\"");
  exec(w, "CREATE VIEW " + w.target("blocked") + " AS SELECT 1 AS id");
  table_entry* blocked = w.table("blocked");
  table_entry* wide = w.table("wide");
  table_entry* fine = w.table("fine");
  image columns;
  for (int i = 0; i < 1601; ++i)
    columns.push_back({"c" + std::to_string(i), value::number("1")});
  const apply_stats s = sink.apply(w.merge({w.upsert(blocked, 1, 1, {{"v", value::string("x")}}),
                                            w.upsert(blocked, 2, 1, {{"v", value::string("y")}}),
                                            w.upsert(wide, 1, 1, std::move(columns)),
                                            w.upsert(fine, 1, 1, {{"v", value::string("z")}})}),
                                   {}, {});
  CHECK(s.upserted == 1);
  CHECK(s.rejected == 3);
  REQUIRE(s.ddl_failures.size() == 2);
  CHECK(s.ddl_failures[0].target == w.source_schema + ".blocked");
  CHECK(s.ddl_failures[0].error.find("not a table") != std::string::npos);
  CHECK(s.ddl_failures[1].target == w.source_schema + ".wide");
  CHECK(s.ddl_failures[1].error.find("54011") != std::string::npos);
  CHECK(w.count("SELECT count(*) FROM " + w.target("fine")) == 1);
  CHECK(w.count("SELECT count(*) FROM " + dead_letters(w) +
                " WHERE kind = 'ddl_failed' AND target_table = 'blocked'") == 2);
  // What a replay needs: the key, the image and the CSNs.
  const auto letter = w.one("SELECT convert_from(value, 'UTF8') FROM " + dead_letters(w) +
                            " WHERE kind = 'ddl_failed' ORDER BY id LIMIT 1");
  REQUIRE(letter);
  CHECK(letter->find("\"upsert_csn\":\"" + testing::seq(1).hex() + "\"") != std::string::npos);
  CHECK(letter->find("\"image\":{") != std::string::npos);

  // The cause fixed, the table's next rows are applied.
  exec(w, "DROP VIEW " + w.target("blocked"));
  const apply_stats after =
      sink.apply(w.merge({w.upsert(blocked, 3, 2, {{"v", value::string("w")}})}), {}, {});
  CHECK(after.upserted == 1);
  CHECK(after.ddl_failures.empty());
  CHECK(w.count("SELECT count(*) FROM " + w.target("blocked")) == 1);
}

TEST_CASE("with ddl.failure: fail a failed DDL stops the batch") {
  pg_world w;
  apply_options o = w.options();
  o.ddl_failure_dead_letters = false;
  o.auto_create = false;
  test_sink sink(w.dsn, o);
  CHECK_THROWS_AS(sink.apply(w.merge({w.upsert(w.table("absent"), 1, 1, {})}), {}, {}),
                  schema_error);
  // The default isolates the same refusal instead.
  apply_options d = w.options();
  d.auto_create = false;
  test_sink isolating(w.dsn, d);
  const apply_stats s = isolating.apply(w.merge({w.upsert(w.table("absent"), 1, 1, {})}), {}, {});
  CHECK(s.rejected == 1);
  REQUIRE(s.ddl_failures.size() == 1);
  CHECK(s.ddl_failures[0].error.find("auto.create is off") != std::string::npos);
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

TEST_CASE("a refused source's truncate is dead-lettered even when the batch runs again") {
  testing::pg_world w;
  table_entry* mixed = w.table("Orders");
  table_entry* upper = w.table("ORDERS");
  apply_options o = w.options();
  o.column_types[w.source_schema + ".payments"]["amount"] = "numeric(12,2)";
  test_sink sink(w.dsn, o);
  sink.apply(w.merge({w.upsert(mixed, 1, 1, {{"v", value::string("a")}})}), {}, {});
  // ORDERS folds onto the target Orders holds: its truncate is refused. A value the database
  // refuses in another table makes the batch run a second time, isolating it.
  change truncate;
  truncate.op = op_kind::truncate;
  truncate.table = upper;
  truncate.seq = testing::seq(5);
  const apply_stats s = sink.apply(
      w.merge({std::move(truncate),
               w.upsert(w.table("payments"), 1, 6, {{"amount", value::string("twelve")}}),
               w.upsert(w.table("payments"), 2, 6, {{"amount", value::number("1.5")}})}),
      {}, {});
  CHECK(s.attempts == 2);
  CHECK(s.upserted == 1);
  CHECK(w.count("SELECT count(*) FROM \"" + w.state +
                "\".dead_letters WHERE kind = 'routing' AND convert_from(value, 'UTF8') LIKE "
                "'%\"op\":\"truncate\"%'") == 1);
  CHECK(w.count("SELECT count(*) FROM " + w.target("orders")) == 1);  // not truncated
}

}  // namespace
}  // namespace sluice
