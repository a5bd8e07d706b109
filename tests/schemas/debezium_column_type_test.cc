#include "schemas/debezium/debezium_column_type.h"

#include <doctest/doctest.h>

#include <string>

namespace sluice {
namespace {

connect_field_schema connect(std::string_view type, std::string_view name = {}) {
  connect_field_schema f;
  f.field = "c";
  f.type = type;
  f.name = name;
  return f;
}

connect_field_schema propagated(connect_field_schema f, std::string_view source,
                                std::optional<int32_t> length = std::nullopt,
                                std::optional<int32_t> scale = std::nullopt) {
  f.source_type = source;
  f.source_length = length;
  f.source_scale = scale;
  return f;
}

std::string type_of(const connect_field_schema& f) {
  return debezium_column_type(f).to_text();
}

constexpr std::string_view decimal = "org.apache.kafka.connect.data.Decimal";

}  // namespace

TEST_CASE("Debezium types: Connect primitives") {
  CHECK(type_of(connect("int8")) == "int16");  // Connect's byte: PostgreSQL has no int8 of 1 byte
  CHECK(type_of(connect("int16")) == "int16");
  CHECK(type_of(connect("int32")) == "int32");
  CHECK(type_of(connect("int64")) == "int64");
  CHECK(type_of(connect("float")) == "float32");
  CHECK(type_of(connect("float32")) == "float32");
  CHECK(type_of(connect("double")) == "float64");
  CHECK(type_of(connect("boolean")) == "boolean");
  CHECK(type_of(connect("string")) == "string");
  CHECK(type_of(connect("bytes")) == "bytes");
  CHECK(type_of(connect("struct")) == "json");
  CHECK(type_of(connect("map")) == "json");
  CHECK(type_of(connect("something")) == "unknown");
}

TEST_CASE("Debezium types: arrays take their items' type, unless the items need converting") {
  connect_field_schema f = connect("array");
  f.items_type = "int32";
  CHECK(type_of(f) == "int32[]");
  f.items_type = "int64";
  f.items_name = "io.debezium.time.MicroTimestamp";
  CHECK(type_of(f) == "json");  // microseconds in a JSON array: no timestamp[] reads them
  f.items_type = "string";
  f.items_name = "io.debezium.data.Uuid";
  CHECK(type_of(f) == "uuid[]");
  f.items_type = "array";  // nested arrays: not a PostgreSQL array type
  f.items_name = {};
  CHECK(type_of(f) == "json");
  f.items_type = {};
  CHECK(type_of(f) == "unknown");
}

TEST_CASE("Debezium types: logical names") {
  connect_field_schema d = connect("bytes", decimal);
  d.scale = 2;
  CHECK(type_of(d) == "decimal");  // no precision: unconstrained
  d.precision = 12;
  CHECK(type_of(d) == "decimal(12,2)");
  CHECK(type_of(connect("struct", "io.debezium.data.VariableScaleDecimal")) == "decimal");
  CHECK(type_of(connect("int32", "io.debezium.time.Date")) == "date");
  CHECK(type_of(connect("int32", "org.apache.kafka.connect.data.Date")) == "date");
  CHECK(type_of(connect("int32", "io.debezium.time.Time")) == "time(3)");
  CHECK(type_of(connect("int64", "io.debezium.time.MicroTime")) == "time(6)");
  CHECK(type_of(connect("int64", "io.debezium.time.NanoTime")) == "time(6)");
  CHECK(type_of(connect("int32", "org.apache.kafka.connect.data.Time")) == "time(3)");
  CHECK(type_of(connect("int64", "io.debezium.time.Timestamp")) == "timestamp(3)");
  CHECK(type_of(connect("int64", "io.debezium.time.MicroTimestamp")) == "timestamp(6)");
  CHECK(type_of(connect("int64", "io.debezium.time.NanoTimestamp")) == "timestamp(6)");
  CHECK(type_of(connect("int64", "org.apache.kafka.connect.data.Timestamp")) == "timestamp(3)");
  CHECK(type_of(connect("string", "io.debezium.time.ZonedTimestamp")) == "timestamptz");
  CHECK(type_of(connect("string", "io.debezium.time.ZonedTime")) == "timetz");
  CHECK(type_of(connect("string", "io.debezium.data.Uuid")) == "uuid");
  CHECK(type_of(connect("string", "io.debezium.data.Json")) == "json");
  CHECK(type_of(connect("string", "io.debezium.data.Xml")) == "xml");
  CHECK(type_of(connect("string", "io.debezium.data.Enum")) == "text");
  CHECK(type_of(connect("string", "io.debezium.data.EnumSet")) == "text");
  CHECK(type_of(connect("bytes", "io.debezium.data.Bits")) == "text");
  CHECK(type_of(connect("string", "io.debezium.time.Interval")) == "interval");
  CHECK(type_of(connect("int64", "io.debezium.time.MicroDuration")) == "interval");
  CHECK(type_of(connect("int32", "io.debezium.time.Year")) == "int32");  // unknown name: type
}

TEST_CASE("Debezium types: PostgreSQL source types win over the Connect type") {
  CHECK(type_of(propagated(connect("string"), "VARCHAR", 80, 0)) == "string(80)");
  CHECK(type_of(propagated(connect("string"), "BPCHAR", 10, 0)) == "string(10)");
  CHECK(type_of(propagated(connect("string"), "TEXT", 2147483647, 0)) == "string");
  CHECK(type_of(propagated(connect("string"), "VARCHAR", 2147483647)) == "string");
  CHECK(type_of(propagated(connect("bytes", decimal), "NUMERIC", 12, 2)) == "decimal(12,2)");
  CHECK(type_of(propagated(connect("struct", "io.debezium.data.VariableScaleDecimal"), "NUMERIC",
                           0)) == "decimal");
  CHECK(type_of(propagated(connect("int64", "io.debezium.time.MicroTimestamp"), "TIMESTAMP", 29,
                           3)) == "timestamp(3)");
  CHECK(type_of(propagated(connect("string", "io.debezium.time.ZonedTimestamp"), "TIMESTAMPTZ", 35,
                           6)) == "timestamptz(6)");
  CHECK(type_of(propagated(connect("int32", "io.debezium.time.Time"), "TIME", 12, 3)) == "time(3)");
  CHECK(type_of(propagated(connect("string"), "UUID")) == "uuid");
  CHECK(type_of(propagated(connect("string"), "JSONB")) == "json");
  CHECK(type_of(propagated(connect("string"), "INTERVAL")) == "interval");
  CHECK(type_of(propagated(connect("int64"), "INT4")) == "int32");
  CHECK(type_of(propagated(connect("bytes", "io.debezium.data.Bits"), "VARBIT", 16)) == "text");
  connect_field_schema arr = connect("array");
  arr.items_type = "int32";
  CHECK(type_of(propagated(arr, "_INT4", 10, 0)) == "int32[]");
  CHECK(type_of(propagated(arr, "_NUMERIC", 8, 2)) == "decimal(8,2)[]");
  // A name sluice does not know (an enum's, a PostGIS type): the Connect-derived type.
  CHECK(type_of(propagated(connect("string", "io.debezium.data.Enum"), "MOOD")) == "text");
  CHECK(type_of(propagated(connect("string"), "CIDR")) == "string");
  CHECK(type_of(propagated(arr, "_MOOD")) == "int32[]");
}

TEST_CASE("Debezium types: MySQL source types") {
  CHECK(type_of(propagated(connect("int32"), "INT", 11)) == "int32");
  CHECK(type_of(propagated(connect("int64"), "INT UNSIGNED", 10)) == "int64");
  CHECK(type_of(propagated(connect("int64"), "BIGINT")) == "int64");
  CHECK(type_of(propagated(connect("int64"), "BIGINT UNSIGNED", 20)) == "decimal(20,0)");
  CHECK(type_of(propagated(connect("int16"), "TINYINT", 4)) == "int16");
  CHECK(type_of(propagated(connect("int16"), "SMALLINT")) == "int16");
  CHECK(type_of(propagated(connect("bytes", decimal), "DECIMAL", 10, 2)) == "decimal(10,2)");
  CHECK(type_of(propagated(connect("string"), "VARCHAR", 255)) == "string(255)");
  CHECK(type_of(propagated(connect("string"), "CHAR", 3)) == "string(3)");
  CHECK(type_of(propagated(connect("bytes"), "BLOB", 65535)) == "bytes");
  CHECK(type_of(propagated(connect("string", "io.debezium.data.Json"), "JSON")) == "json");
  CHECK(type_of(propagated(connect("int32", "io.debezium.time.Date"), "DATE")) == "date");
  CHECK(type_of(propagated(connect("int64", "io.debezium.time.MicroTime"), "TIME", 3)) ==
        "time(3)");
  // DATETIME is a local time; MySQL's TIMESTAMP an instant (ZonedTimestamp tells them apart).
  CHECK(type_of(propagated(connect("int64", "io.debezium.time.MicroTimestamp"), "DATETIME", 6)) ==
        "timestamp(6)");
  CHECK(type_of(propagated(connect("int64", "io.debezium.time.Timestamp"), "DATETIME", 19)) ==
        "timestamp");
  CHECK(type_of(propagated(connect("string", "io.debezium.time.ZonedTimestamp"), "TIMESTAMP")) ==
        "timestamptz");
  CHECK(type_of(propagated(connect("boolean"), "BIT", 1)) == "boolean");
  CHECK(type_of(propagated(connect("string", "io.debezium.data.Enum"), "ENUM", 1)) == "text");
}

TEST_CASE("Debezium types: the source's own spelling") {
  CHECK(debezium_source_type(connect("string")).empty());
  CHECK(debezium_source_type(propagated(connect("string"), "VARCHAR", 80, 0)) == "VARCHAR(80)");
  CHECK(debezium_source_type(propagated(connect("string"), "TEXT", 2147483647, 0)) == "TEXT");
  CHECK(debezium_source_type(propagated(connect("bytes"), "NUMERIC", 12, 2)) == "NUMERIC(12,2)");
  CHECK(debezium_source_type(propagated(connect("bytes"), "NUMERIC", 0)) == "NUMERIC");
  CHECK(debezium_source_type(propagated(connect("string"), "TIMESTAMPTZ", 35, 6)) ==
        "TIMESTAMPTZ(6)");
  CHECK(debezium_source_type(propagated(connect("array"), "_INT4", 10, 0)) == "_INT4");
}

}  // namespace sluice

namespace sluice {

TEST_CASE("Debezium types: a propagated type wins only where the values sent can enter it") {
  // binary.handling.mode=base64: a BYTEA arrives as Connect string text, not bytes.
  CHECK(type_of(propagated(connect("string"), "BYTEA", 2147483647, 0)) == "string");
  CHECK(type_of(propagated(connect("bytes"), "BYTEA", 2147483647, 0)) == "bytes");
  // MySQL's TINYINT(1) as a Connect boolean stays boolean.
  CHECK(type_of(propagated(connect("boolean"), "TINYINT", 1, 0)) == "boolean");
  // An array of dates (days in JSON) stays JSON even when the source says _DATE.
  connect_field_schema dates = connect("array");
  dates.items_type = "int32";
  dates.items_name = "io.debezium.time.Date";
  CHECK(type_of(propagated(dates, "_DATE", 13, 0)) == "json");
}

}  // namespace sluice
