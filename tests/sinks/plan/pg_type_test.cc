#include "sinks/postgres/plan/pg_type.h"

#include <doctest/doctest.h>

namespace sluice {
namespace {

column_type t(std::string_view text) {
  auto parsed = column_type::parse(text);
  REQUIRE_MESSAGE(parsed, text);
  return *parsed;
}

}  // namespace

TEST_CASE("auto.create gives each stream type PostgreSQL's own type") {
  CHECK(pg_type_for(t("boolean")) == "boolean");
  CHECK(pg_type_for(t("int16")) == "smallint");
  CHECK(pg_type_for(t("int32")) == "integer");
  CHECK(pg_type_for(t("int64")) == "bigint");
  CHECK(pg_type_for(t("float32")) == "real");
  CHECK(pg_type_for(t("float64")) == "double precision");
  CHECK(pg_type_for(t("decimal(12,2)")) == "numeric(12,2)");
  CHECK(pg_type_for(t("decimal")) == "numeric");
  CHECK(pg_type_for(t("decimal(2000,2)")) == "numeric");  // beyond what numeric declares
  CHECK(pg_type_for(t("string(80)")) == "character varying(80)");
  CHECK(pg_type_for(t("string")) == "text");
  CHECK(pg_type_for(t("bytes")) == "bytea");
  CHECK(pg_type_for(t("uuid")) == "uuid");
  CHECK(pg_type_for(t("json")) == "jsonb");
  CHECK(pg_type_for(t("xml")) == "xml");
  CHECK(pg_type_for(t("date")) == "date");
  CHECK(pg_type_for(t("time(3)")) == "time(3) without time zone");
  CHECK(pg_type_for(t("time(9)")) == "time(6) without time zone");
  CHECK(pg_type_for(t("timetz")) == "time with time zone");
  CHECK(pg_type_for(t("timestamp(6)")) == "timestamp(6) without time zone");
  CHECK(pg_type_for(t("timestamptz")) == "timestamp with time zone");
  CHECK(pg_type_for(t("interval")) == "interval");
  CHECK(pg_type_for(t("text")) == "text");
  CHECK(pg_type_for(t("int32[]")) == "integer[]");
  CHECK(pg_type_for(t("string(20)[]")) == "character varying(20)[]");
  CHECK(pg_type_for(column_type{}).empty());
}

TEST_CASE("format_type()'s names read back as the portable types") {
  for (std::string_view portable :
       {"boolean",  "int16",         "int32",        "int64",       "float32",
        "float64",  "decimal(12,2)", "decimal",      "string(80)",  "string",
        "bytes",    "uuid",          "json",         "xml",         "date",
        "time(3)",  "timetz",        "timestamp(6)", "timestamptz", "timestamptz(3)",
        "interval", "int32[]",       "string(20)[]"}) {
    const std::string pg = pg_type_for(t(portable));
    auto back = portable_of_pg(pg);
    REQUIRE_MESSAGE(back, pg);
    CHECK_MESSAGE(back->to_text() == portable, pg);
  }
  CHECK(portable_of_pg("character(10)")->to_text() == "string(10)");
  CHECK(portable_of_pg("json")->to_text() == "json");
  CHECK_FALSE(portable_of_pg("point"));
  CHECK_FALSE(portable_of_pg("public.my_domain"));
}

}  // namespace sluice
