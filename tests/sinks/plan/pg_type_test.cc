#include "sinks/postgres/plan/pg_type.h"

#include <doctest/doctest.h>

#include "tests/core/parsed_type.h"

namespace sluice {

TEST_CASE("auto.create gives each stream type PostgreSQL's own type") {
  CHECK(pg_type_for(parsed_type("boolean")) == "boolean");
  CHECK(pg_type_for(parsed_type("int16")) == "smallint");
  CHECK(pg_type_for(parsed_type("int32")) == "integer");
  CHECK(pg_type_for(parsed_type("int64")) == "bigint");
  CHECK(pg_type_for(parsed_type("float32")) == "real");
  CHECK(pg_type_for(parsed_type("float64")) == "double precision");
  CHECK(pg_type_for(parsed_type("decimal(12,2)")) == "numeric(12,2)");
  CHECK(pg_type_for(parsed_type("decimal")) == "numeric");
  CHECK(pg_type_for(parsed_type("decimal(2000,2)")) == "numeric");  // beyond what numeric declares
  CHECK(pg_type_for(parsed_type("string(80)")) == "character varying(80)");
  CHECK(pg_type_for(parsed_type("string")) == "text");
  CHECK(pg_type_for(parsed_type("bytes")) == "bytea");
  CHECK(pg_type_for(parsed_type("uuid")) == "uuid");
  CHECK(pg_type_for(parsed_type("json")) == "jsonb");
  CHECK(pg_type_for(parsed_type("xml")) == "xml");
  CHECK(pg_type_for(parsed_type("date")) == "date");
  CHECK(pg_type_for(parsed_type("time(3)")) == "time(3) without time zone");
  CHECK(pg_type_for(parsed_type("time(9)")) == "time(6) without time zone");
  CHECK(pg_type_for(parsed_type("timetz")) == "time with time zone");
  CHECK(pg_type_for(parsed_type("timestamp(6)")) == "timestamp(6) without time zone");
  CHECK(pg_type_for(parsed_type("timestamptz")) == "timestamp with time zone");
  CHECK(pg_type_for(parsed_type("interval")) == "interval");
  CHECK(pg_type_for(parsed_type("text")) == "text");
  CHECK(pg_type_for(parsed_type("int32[]")) == "integer[]");
  CHECK(pg_type_for(parsed_type("string(20)[]")) == "character varying(20)[]");
  CHECK(pg_type_for(column_type{}).empty());
}

TEST_CASE("format_type()'s names read back as the portable types") {
  for (std::string_view portable :
       {"boolean",  "int16",         "int32",        "int64",       "float32",
        "float64",  "decimal(12,2)", "decimal",      "string(80)",  "string",
        "bytes",    "uuid",          "json",         "xml",         "date",
        "time(3)",  "timetz",        "timestamp(6)", "timestamptz", "timestamptz(3)",
        "interval", "int32[]",       "string(20)[]"}) {
    const std::string pg = pg_type_for(parsed_type(portable));
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
