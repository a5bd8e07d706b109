#include "schemas/goldengate/goldengate_types.h"

#include <doctest/doctest.h>

#include <string>

#include "schemas/goldengate/goldengate_json_schema.h"

namespace sluice {
namespace {

std::string portable(std::string_view type) {
  return goldengate_column_type(type).to_text();
}

TEST_CASE("Oracle column types map to portable types, numbers staying exact") {
  struct expected {
    const char* oracle;
    const char* portable;
  };
  const expected cases[] = {
      {"NUMBER(10,2)", "decimal(10,2)"},
      {"NUMBER(10)", "decimal(10,0)"},  // an integer, but exact: never int64
      {"NUMBER(10,0)", "decimal(10,0)"},
      {"NUMBER(38)", "decimal(38,0)"},
      {"NUMBER", "decimal"},
      {"NUMBER(*,2)", "decimal(38,2)"},
      {"NUMBER(5,-2)", "decimal(7,0)"},
      {"NUMBER(3,5)", "decimal(5,5)"},
      {"number(12, 4)", "decimal(12,4)"},
      {"FLOAT", "decimal"},
      {"FLOAT(126)", "decimal"},
      {"BINARY_FLOAT", "float32"},
      {"BINARY_DOUBLE", "float64"},
      {"VARCHAR2(20)", "string(20)"},
      {"VARCHAR2(20 BYTE)", "string(20)"},
      {"VARCHAR2(20 CHAR)", "string(20)"},
      {"NVARCHAR2(40)", "string(40)"},
      {"CHAR(1)", "string(1)"},
      {"NCHAR(3)", "string(3)"},
      {"CLOB", "string"},
      {"NCLOB", "string"},
      {"LONG", "string"},
      {"RAW(16)", "bytes"},
      {"BLOB", "bytes"},
      {"LONG RAW", "bytes"},
      {"long  raw", "bytes"},
      {"DATE", "timestamp(0)"},
      {"TIMESTAMP", "timestamp(6)"},
      {"TIMESTAMP(3)", "timestamp(3)"},
      {"TIMESTAMP(9)", "timestamp(9)"},
      {"TIMESTAMP(6) WITH TIME ZONE", "timestamptz(6)"},
      {"TIMESTAMP WITH TIME ZONE", "timestamptz(6)"},
      {"TIMESTAMP(3) WITH LOCAL TIME ZONE", "timestamptz(3)"},
      {"INTERVAL YEAR(2) TO MONTH", "interval"},
      {"INTERVAL DAY(2) TO SECOND(6)", "interval"},
      {"JSON", "json"},
      {"XMLTYPE", "xml"},
      {"SYS.XMLTYPE", "xml"},
      {"BOOLEAN", "boolean"},
      {"ROWID", "string"},
  };
  for (const expected& e : cases) {
    INFO(e.oracle);
    CHECK(portable(e.oracle) == e.portable);
  }
}

TEST_CASE("Data Streams' primitive classifications map to the widest type of their kind") {
  CHECK(portable("number") == "decimal");
  CHECK(portable("integer") == "decimal");
  CHECK(portable("string") == "string");
  CHECK(portable("boolean") == "boolean");
  CHECK(portable("binary") == "bytes");
  CHECK(portable("timestamp") == "timestamp(6)");
  CHECK(is_json_primitive("number"));
  CHECK(is_json_primitive("String"));
  CHECK(is_json_primitive(""));
  CHECK(!is_json_primitive("NUMBER(10)"));
  CHECK(!is_json_primitive("binary"));
}

TEST_CASE("unknown and empty type names are unknown, not a guess") {
  for (const char* t : {"", "null", "SDO_GEOMETRY", "BFILE", "MY_OBJECT_TYPE", "INTERVALS"}) {
    INFO(t);
    CHECK(!goldengate_column_type(t).known());
  }
}

TEST_CASE("a JSON Schema property's type, format and maxLength give the column type") {
  const auto t = [](std::string_view type, std::string_view format = {},
                    std::optional<int64_t> max = std::nullopt, std::string_view encoding = {}) {
    return json_schema_column_type({type, format, encoding, max}).to_text();
  };
  CHECK(t("integer") == "decimal");
  CHECK(t("number") == "decimal");
  CHECK(t("boolean") == "boolean");
  CHECK(t("string") == "string");
  CHECK(t("string", {}, 80) == "string(80)");
  CHECK(t("string", "date-time") == "timestamp");
  CHECK(t("string", "date") == "date");
  CHECK(t("string", "time") == "time");
  CHECK(t("string", "uuid") == "uuid");
  CHECK(t("string", {}, std::nullopt, "base64") == "bytes");
  CHECK(t("object") == "json");
  CHECK(t("null") == "unknown");
  CHECK(t("") == "unknown");
}

TEST_CASE("a table's JSON Schema record declares its columns, inline or through definitions") {
  const goldengate_names names({}, {});
  const auto types_of = [&](std::string_view schema) {
    std::string out;
    for (const column_types::column& c : json_schema_columns(schema, names, 100)) {
      out += c.name + ":" + c.type.to_text() + " ";
    }
    return out;
  };
  // Columns as the record's own properties: the record's fields are not columns.
  CHECK(types_of(R"({"$schema": "http://json-schema.org/draft-04/schema#", "id": "S.T",
      "properties": {"qual_table": {"type": "string"}, "op_type": {"type": "string"},
        "ID": {"type": "integer"}, "NAME": {"type": ["null", "string"], "maxLength": 40},
        "AT": {"anyOf": [{"type": "null"}, {"type": "string", "format": "date-time"}]},
        "AMOUNT": {"type": ["number", "null"]}, "primary_keys": {"type": "array"}}})") ==
        "ID:decimal NAME:string(40) AT:timestamp AMOUNT:decimal ");
  // Columns as the after image's properties, through a $ref.
  CHECK(types_of(R"({"id": "S.T", "definitions": {"row": {"type": "object", "properties": {
        "ID": {"type": "integer"}, "DOC": {"type": "string", "contentEncoding": "base64"}}}},
      "properties": {"op_type": {"type": "string"}, "before": {"$ref": "#/definitions/row"},
        "after": {"$ref": "#/definitions/row"}}})") == "ID:decimal DOC:bytes ");
  CHECK(types_of("not json").empty());
  CHECK(types_of(R"({"id": "S.T"})").empty());
  // Bounded by max_columns.
  CHECK(json_schema_columns(R"({"properties": {"A": {"type": "integer"}, "B": {}}})", names, 1)
            .size() == 1);
}

}  // namespace
}  // namespace sluice
