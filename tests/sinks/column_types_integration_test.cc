// Column types against a real server (CTest label "integration"): auto.create makes the
// stream's types, column.types and an existing column win over them, a wider stream type is
// applied only with auto.evolve.widen, and a value the column cannot hold is a dead letter
// naming table, column, type and value (issue 13).
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include <pqxx/pqxx>

#include "tests/sinks/pg_world.h"
#include "tests/sinks/test_sink.h"

namespace sluice {
namespace {

using testing::pg_world;

shared_column_types types_of(std::vector<std::pair<std::string, std::string>> columns) {
  auto out = std::make_shared<column_types>();
  for (auto& [name, text] : columns) {
    auto t = column_type::parse(text);
    REQUIRE_MESSAGE(t, text);
    out->columns.push_back({name, *t, {}});
  }
  return out;
}

change typed(change c, const shared_column_types& types) {
  c.types = types;
  return c;
}

void exec(pg_world& w, const std::string& sql) {
  pqxx::work tx(w.look);
  tx.exec("SET client_min_messages TO warning");
  tx.exec(sql);
  tx.commit();
}

// format_type() of a target column.
std::string type_of(pg_world& w, const std::string& table, const std::string& column) {
  return w
      .one("SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a WHERE a.attrelid = '" +
           w.target(table) + "'::regclass AND a.attname = '" + column + "'")
      .value_or("(none)");
}

std::string dead_letters(const pg_world& w) {
  return "\"" + w.state + "\".dead_letters";
}

}  // namespace

TEST_CASE("auto.create makes the stream's types and the values read back as the source's") {
  pg_world w;
  test_sink sink(w.dsn, w.options());
  sink.start();
  table_entry* t = w.table("every_type");
  const auto types = types_of({{"id", "int64"},
                               {"small", "int16"},
                               {"qty", "int32"},
                               {"ratio", "float64"},
                               {"price", "decimal(12,2)"},
                               {"loose", "decimal"},
                               {"name", "string(80)"},
                               {"note", "string"},
                               {"ok", "boolean"},
                               {"born", "date"},
                               {"at", "time(3)"},
                               {"seen", "timestamp(6)"},
                               {"made", "timestamptz(6)"},
                               {"ref", "uuid"},
                               {"doc", "json"},
                               {"span", "interval"},
                               {"blob", "bytes"},
                               {"tags", "int32[]"}});
  const apply_stats s = sink.apply(
      w.merge({typed(w.upsert(t, 1, 1,
                              {{"small", value::number("-32768")},
                               {"qty", value::number("2147483647")},
                               {"ratio", value::number("0.25")},
                               {"price", value::number("29.99")},
                               {"loose", value::number("-0.000123")},
                               {"name", value::string("Zoë")},
                               {"note", value::string("a long note")},
                               {"ok", value::boolean(true)},
                               {"born", value::string("1969-07-20")},
                               {"at", value::string("11:30:00.123")},
                               {"seen", value::string("2026-03-29T02:30:00.123456")},
                               {"made", value::string("2026-07-13T04:01:01.123456Z")},
                               {"ref", value::string("3f1c9a2e-8d4b-4c6a-9e2f-1a2b3c4d5e6f")},
                               {"doc", value::json(R"({"a": [1, 2]})")},
                               {"span", value::string("1 day 02:03:04")},
                               {"blob", value::null()},
                               {"tags", value::null()}}),
                     types)}),
      {}, {});
  CHECK(s.upserted == 1);
  CHECK(type_of(w, "every_type", "id") == "bigint");
  CHECK(type_of(w, "every_type", "small") == "smallint");
  CHECK(type_of(w, "every_type", "qty") == "integer");
  CHECK(type_of(w, "every_type", "ratio") == "double precision");
  CHECK(type_of(w, "every_type", "price") == "numeric(12,2)");
  CHECK(type_of(w, "every_type", "loose") == "numeric");
  CHECK(type_of(w, "every_type", "name") == "character varying(80)");
  CHECK(type_of(w, "every_type", "note") == "text");
  CHECK(type_of(w, "every_type", "ok") == "boolean");
  CHECK(type_of(w, "every_type", "born") == "date");
  CHECK(type_of(w, "every_type", "at") == "time(3) without time zone");
  CHECK(type_of(w, "every_type", "seen") == "timestamp(6) without time zone");
  CHECK(type_of(w, "every_type", "made") == "timestamp(6) with time zone");
  CHECK(type_of(w, "every_type", "ref") == "uuid");
  CHECK(type_of(w, "every_type", "doc") == "jsonb");
  CHECK(type_of(w, "every_type", "span") == "interval");
  CHECK(type_of(w, "every_type", "blob") == "bytea");
  CHECK(type_of(w, "every_type", "tags") == "integer[]");
  // Typed comparisons work on the replica without casts.
  CHECK(w.count("SELECT count(*) FROM " + w.target("every_type") +
                " WHERE born < DATE '1970-01-01' AND price = 29.99 AND qty = 2147483647"
                " AND made = TIMESTAMPTZ '2026-07-13 04:01:01.123456+00'"
                " AND ref = '3f1c9a2e-8d4b-4c6a-9e2f-1a2b3c4d5e6f'::uuid AND doc @> '{\"a\": [1]}'"
                " AND span = INTERVAL '26 hours 3 minutes 4 seconds'") == 1);
}

TEST_CASE("column.types wins over the stream's type, and an existing column's type is kept") {
  pg_world w;
  apply_options o = w.options();
  o.column_types[w.source_schema + ".orders"] = {{"code", "character(6)"}};
  test_sink sink(w.dsn, o);
  sink.start();
  exec(w, "CREATE SCHEMA " + w.source_schema + "; CREATE TABLE " + w.target("orders") +
              " (id bigint PRIMARY KEY, amount text)");
  table_entry* t = w.table("orders");
  const auto types = types_of({{"id", "int64"}, {"amount", "decimal(12,2)"}, {"code", "string"}});
  sink.apply(
      w.merge({typed(
          w.upsert(t, 1, 1, {{"amount", value::number("12.50")}, {"code", value::string("AB")}}),
          types)}),
      {}, {});
  CHECK(type_of(w, "orders", "amount") == "text");        // the existing column rules
  CHECK(type_of(w, "orders", "code") == "character(6)");  // column.types rules
  CHECK(w.one("SELECT amount FROM " + w.target("orders")) == "12.50");
}

TEST_CASE("a value wider than its column is a dead letter naming it, unless widening is on") {
  pg_world w;
  exec(w, "CREATE SCHEMA " + w.source_schema + "; CREATE TABLE " + w.target("people") +
              " (id bigint PRIMARY KEY, name varchar(4), age smallint, total numeric(4,2))");
  table_entry* t = w.table("people");
  const auto narrow = types_of({{"id", "int64"}, {"name", "string(4)"}, {"age", "int16"}});
  const auto wide = types_of({{"id", "int64"}, {"name", "string(8)"}, {"age", "int32"}});
  {
    test_sink sink(w.dsn, w.options());
    sink.start();
    const apply_stats s = sink.apply(
        w.merge({typed(w.upsert(t, 1, 1, {{"name", value::string("Ann")}}), narrow),
                 typed(w.upsert(t, 2, 1, {{"name", value::string("Bartholomew")}}), wide),
                 typed(w.upsert(t, 3, 1, {{"age", value::number("40000")}}), wide),
                 w.upsert(t, 4, 1, {{"total", value::number("123.4")}}),
                 // Trailing spaces beyond the length are what PostgreSQL itself drops.
                 typed(w.upsert(t, 5, 1, {{"name", value::string("Eve      ")}}), narrow)}),
        {}, {});
    CHECK(s.upserted == 2);
    CHECK(s.rejected == 3);
    CHECK(type_of(w, "people", "name") == "character varying(4)");  // not widened by default
    CHECK(w.count("SELECT count(*) FROM " + dead_letters(w) +
                  " WHERE kind = 'rejected' AND reason LIKE '%column \"name\" (character "
                  "varying(4)) cannot hold \"Bartholomew\" (11 characters)%auto.evolve.widen%'") ==
          1);
    CHECK(w.count("SELECT count(*) FROM " + dead_letters(w) +
                  " WHERE reason LIKE '%column \"age\" (smallint) cannot hold \"40000\"%'") == 1);
    CHECK(w.count("SELECT count(*) FROM " + dead_letters(w) +
                  " WHERE reason LIKE '%column \"total\" (numeric(4,2)) cannot hold \"123.4\"%'") ==
          1);
    // Nothing was cut short on the way in.
    CHECK(w.count("SELECT count(*) FROM " + w.target("people") + " WHERE id = 2") == 0);
  }
  {
    apply_options o = w.options();
    o.auto_evolve_widen = true;
    test_sink sink(w.dsn, o);
    sink.start();
    const apply_stats s =
        sink.apply(w.merge({typed(w.upsert(t, 2, 2, {{"name", value::string("Bart1234")}}), wide),
                            typed(w.upsert(t, 3, 2, {{"age", value::number("40000")}}), wide)}),
                   {}, {});
    CHECK(s.upserted == 2);
    CHECK(type_of(w, "people", "name") == "character varying(8)");
    CHECK(type_of(w, "people", "age") == "integer");
    CHECK(w.one("SELECT name FROM " + w.target("people") + " WHERE id = 2") == "Bart1234");
    CHECK(w.one("SELECT age FROM " + w.target("people") + " WHERE id = 3") == "40000");
  }
}

TEST_CASE("bytes into a varchar(n) and elements of a varchar(n)[] are checked, never cut short") {
  pg_world w;
  exec(w, "CREATE SCHEMA " + w.source_schema + "; CREATE TABLE " + w.target("tagged") +
              " (id bigint PRIMARY KEY, token varchar(8), tags varchar(3)[])");
  table_entry* t = w.table("tagged");
  test_sink sink(w.dsn, w.options());
  sink.start();
  const apply_stats s = sink.apply(
      w.merge({w.upsert(t, 1, 1, {{"token", value::bytes(std::string("\x00\xff\x5c", 3))}}),
               // 9 bytes are 12 characters of base64: more than varchar(8) holds.
               w.upsert(t, 2, 1, {{"token", value::bytes(std::string(9, 'x'))}}),
               w.upsert(t, 3, 1, {{"tags", value::json(R"(["abc", "\u00e9t\u00e9"])")}}),
               w.upsert(t, 4, 1, {{"tags", value::json(R"(["abc", "abcd"])")}})}),
      {}, {});
  CHECK(s.upserted == 2);
  CHECK(s.rejected == 2);
  CHECK(w.one("SELECT token FROM " + w.target("tagged") + " WHERE id = 1") == "AP9c");
  CHECK(w.one("SELECT array_to_string(tags, ',') FROM " + w.target("tagged") + " WHERE id = 3") ==
        "abc,\u00e9t\u00e9");
  CHECK(w.count("SELECT count(*) FROM " + dead_letters(w) +
                " WHERE reason LIKE '%column \"token\" (character varying(8)) cannot hold (9 "
                "bytes) (12 characters of base64)%'") == 1);
  CHECK(w.count("SELECT count(*) FROM " + dead_letters(w) +
                " WHERE reason LIKE '%column \"tags\" (character varying(3)[])%an element of 4 "
                "characters%'") == 1);
}

}  // namespace sluice
