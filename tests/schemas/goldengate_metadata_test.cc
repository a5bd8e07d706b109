#include "schemas/goldengate/goldengate_metadata.h"

#include <doctest/doctest.h>

namespace sluice {
namespace {

TEST_CASE("qual_table names one, two or three parts, quoted or not") {
  CHECK(*parse_qual_table("ORDERS") == table_name{"", "", "ORDERS"});
  CHECK(*parse_qual_table("SALES.ORDERS") == table_name{"", "SALES", "ORDERS"});
  CHECK(*parse_qual_table("PDB1.SALES.ORDERS") == table_name{"PDB1", "SALES", "ORDERS"});
  CHECK(*parse_qual_table(R"("Sales"."My.Table")") == table_name{"", "Sales", "My.Table"});
  CHECK(*parse_qual_table(R"(SALES."say ""hi""")") == table_name{"", "SALES", R"(say "hi")"});
  for (const char* bad : {"", ".", "A.", ".B", "A..B", "A.B.C.D", R"("A)", R"("A"B.C)"}) {
    INFO(bad);
    const auto r = parse_qual_table(bad);
    REQUIRE(!r);
    CHECK(r.err().code == error_code::bad_identifier);
  }
}

TEST_CASE("column types classify as numeric, text, boolean or other, whatever their case") {
  for (const char* t : {"number", "NUMBER(10,2)", "integer", "INTEGER", "DECIMAL(38,0)", "FLOAT",
                        "binary_double", "double precision", "bigint", "numeric(5)"}) {
    INFO(t);
    CHECK(classify_column_type(t) == column_class::numeric);
  }
  for (const char* t :
       {"string", "VARCHAR2(20)", "varchar(40)", "CHAR(1)", "CLOB", "NVARCHAR2", "text"}) {
    INFO(t);
    CHECK(classify_column_type(t) == column_class::text);
  }
  CHECK(classify_column_type("boolean") == column_class::boolean);
  CHECK(classify_column_type("TIMESTAMP(6) WITH TIME ZONE") == column_class::other);
  CHECK(classify_column_type("DATE") == column_class::other);
  CHECK(classify_column_type("") == column_class::unknown);
  CHECK(classify_column_type("null") == column_class::unknown);
}

TEST_CASE("learning a shape keeps a configured key") {
  table_entry configured;
  configured.key_columns = {"A"};
  configured.key_configured = true;
  learn_shape(configured, {{"B", "number", column_class::numeric, false, true, {}}}, {"B"});
  CHECK(configured.key_columns == std::vector<std::string>{"A"});
  CHECK(configured.columns.size() == 1);
  table_entry learned;
  learn_shape(learned, {{"B", "number", column_class::numeric, false, true, {}}}, {"B"});
  CHECK(learned.key_columns == std::vector<std::string>{"B"});
}

TEST_CASE("a restored catalog row without portable types gets them from its source types") {
  // What load() reads from a sluice.catalog row written before portable types were stored.
  table_entry t;
  learn_shape(t,
              {{"ID", "NUMBER(10)", column_class::numeric, false, true, {}},
               {"AMOUNT", "number", column_class::numeric, true, false, {}},
               {"AT", "TIMESTAMP(3)", column_class::other, true, false, {}},
               {"X", "SDO_GEOMETRY", column_class::other, true, false, {}}},
              {"ID"});
  REQUIRE(t.types);
  CHECK(t.columns[0].type.to_text() == "decimal(10,0)");
  CHECK(t.types->columns[0].type.to_text() == "decimal(10,0)");
  CHECK(t.types->columns[1].type.to_text() == "decimal");
  CHECK(t.types->columns[2].type.to_text() == "timestamp(3)");
  CHECK(!t.types->columns[3].type.known());
  // A stored portable type is kept as it is (a JSON Schema record may have refined it).
  learn_shape(t, {{"AMOUNT", "number", column_class::numeric, true, false, {type_id::int64}}}, {});
  CHECK(t.types->columns[0].type.to_text() == "int64");
}

TEST_CASE("learning the same shape again keeps the type snapshot, another one replaces it") {
  table_entry t;
  const std::vector<column_info> shape = {
      {"ID", "NUMBER(10)", column_class::numeric, false, true, {}}};
  learn_shape(t, shape, {"ID"});
  const shared_column_types first = t.types;
  learn_shape(t, shape, {"ID"});
  CHECK(t.types == first);
  learn_shape(t, {{"ID", "NUMBER(12)", column_class::numeric, false, true, {}}}, {"ID"});
  CHECK(t.types != first);
  CHECK(t.types->columns[0].type.to_text() == "decimal(12,0)");
  learn_shape(t, {}, {});
  CHECK(!t.types);
}

}  // namespace
}  // namespace sluice
