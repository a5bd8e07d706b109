#include "sinks/mariadb/plan/mdb_type.h"

#include <doctest/doctest.h>

#include "tests/core/parsed_type.h"

namespace sluice {
namespace {

using mdb::mdb_type_for;
using mdb::mdb_type_for_kind;
using mdb::sql_dialect;

const std::string exact = " CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin";

TEST_CASE("mariadb types: auto.create gives each stream type MariaDB's own") {
  CHECK(mdb_type_for(parsed_type("boolean")) == "boolean");
  CHECK(mdb_type_for(parsed_type("int16")) == "smallint");
  CHECK(mdb_type_for(parsed_type("int32")) == "int");
  CHECK(mdb_type_for(parsed_type("int64")) == "bigint");
  CHECK(mdb_type_for(parsed_type("float32")) == "float");
  CHECK(mdb_type_for(parsed_type("float64")) == "double");
  CHECK(mdb_type_for(parsed_type("decimal(12,2)")) == "decimal(12,2)");
  CHECK(mdb_type_for(parsed_type("decimal(65,38)")) == "decimal(65,38)");
  // Beyond MariaDB's 65 digits or scale 38: the exact text. Unconstrained: decimal(65,30),
  // guarded by decimal_fits().
  CHECK(mdb_type_for(parsed_type("decimal(66,2)")) == "longtext" + exact);
  CHECK(mdb_type_for(parsed_type("decimal(60,39)")) == "longtext" + exact);
  CHECK(mdb_type_for(parsed_type("decimal")) == "decimal(65,30)");
  CHECK(mdb_type_for(parsed_type("string(80)")) == "varchar(80)" + exact);
  CHECK(mdb_type_for(parsed_type("string(255)")) == "varchar(255)" + exact);
  CHECK(mdb_type_for(parsed_type("string(256)")) == "longtext" + exact);  // the row limit
  CHECK(mdb_type_for(parsed_type("string")) == "longtext" + exact);
  CHECK(mdb_type_for(parsed_type("bytes")) == "longblob");
  CHECK(mdb_type_for(parsed_type("uuid")) == "uuid");
  CHECK(mdb_type_for(parsed_type("json")) == "json");
  CHECK(mdb_type_for(parsed_type("xml")) == "longtext" + exact);
  CHECK(mdb_type_for(parsed_type("date")) == "date");
  CHECK(mdb_type_for(parsed_type("time(3)")) == "time(3)");
  CHECK(mdb_type_for(parsed_type("time")) == "time(6)");
  CHECK(mdb_type_for(parsed_type("timetz")) == "longtext" + exact);
  CHECK(mdb_type_for(parsed_type("timestamp(9)")) == "datetime(6)");
  CHECK(mdb_type_for(parsed_type("timestamptz")) == "datetime(6)");  // UTC
  CHECK(mdb_type_for(parsed_type("timestamptz(3)")) == "datetime(3)");
  CHECK(mdb_type_for(parsed_type("interval")) == "longtext" + exact);
  CHECK(mdb_type_for(parsed_type("text")) == "longtext" + exact);
  CHECK(mdb_type_for(parsed_type("int32[]")) == "json");  // MariaDB has no arrays
  CHECK(mdb_type_for(column_type{}).empty());
}

TEST_CASE("mariadb types: MariaDB 10.6 has no UUID type, MySQL 8 its own collation") {
  CHECK(sql_dialect::of_server(100611).uuid_type == false);
  CHECK(sql_dialect::of_server(101106).uuid_type == true);
  CHECK(sql_dialect::of_server(80036).mysql);
  CHECK_FALSE(sql_dialect::of_server(110402).mysql);
  CHECK(mdb_type_for(parsed_type("uuid"), sql_dialect::of_server(100611)) ==
        "char(36) CHARACTER SET ascii COLLATE ascii_nopad_bin");
  const sql_dialect mysql = sql_dialect::mysql8();
  CHECK(mdb_type_for(parsed_type("uuid"), mysql) ==
        "char(36) CHARACTER SET ascii COLLATE ascii_bin");
  CHECK(mdb_type_for(parsed_type("string(10)"), mysql) ==
        "varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin");
  CHECK(mdb_type_for(parsed_type("json"), mysql) == "json");
}

TEST_CASE("mariadb types: untyped columns from their values' JSON kinds") {
  CHECK(mdb_type_for_kind(value_kind::number, false) == "decimal(65,30)");
  CHECK(mdb_type_for_kind(value_kind::string, false) == "longtext" + exact);
  CHECK(mdb_type_for_kind(value_kind::boolean, false) == "boolean");
  CHECK(mdb_type_for_kind(value_kind::json, false) == "json");
  CHECK(mdb_type_for_kind(value_kind::bytes, false) == "longblob");
  CHECK(mdb_type_for_kind(value_kind::null, false) == "longtext" + exact);
  CHECK(mdb_type_for_kind(value_kind::number, true) == "longtext" + exact);
}

TEST_CASE("mariadb types: a primary key's text and bytes share InnoDB's 3072 bytes") {
  using mdb::key_column;
  // One text key: all of it (4 bytes a character).
  CHECK(mdb::key_types({{column_type{}, value_kind::string}}) ==
        std::vector<std::string>{"varchar(768)" + exact});
  // Fixed columns first (bigint: 8 bytes), the rest shared; a stated length below its share
  // is kept, and what it leaves goes to the others.
  auto types = mdb::key_types({{parsed_type("int64"), value_kind::number},
                               {parsed_type("string(10)"), value_kind::string},
                               {column_type{}, value_kind::string},
                               {parsed_type("bytes"), value_kind::bytes}});
  CHECK(types[0] == "bigint");
  CHECK(types[1] == "varchar(10)" + exact);
  CHECK(types[2] == "varchar(378)" + exact);  // (3072 - 8 - 40) / 2 / 4
  CHECK(types[3] == "varbinary(1512)");
  // Never `text` in a key; untyped numbers and booleans keep their types.
  types = mdb::key_types({{parsed_type("text"), value_kind::string},
                          {column_type{}, value_kind::number},
                          {column_type{}, value_kind::boolean},
                          {parsed_type("uuid"), value_kind::string},
                          {parsed_type("timestamptz"), value_kind::string}});
  CHECK(types[0] == "varchar(" + std::to_string((3072 - 30 - 1 - 16 - 8) / 4) + ")" + exact);
  CHECK(types[1] == "decimal(65,30)");
  CHECK(types[2] == "boolean");
  CHECK(types[3] == "uuid");
  CHECK(types[4] == "datetime(6)");
  // Their sum stays within the limit whatever the stream states.
  types = mdb::key_types({{parsed_type("string(1000)"), value_kind::string},
                          {parsed_type("string(1000)"), value_kind::string}});
  CHECK(types[0] == "varchar(384)" + exact);
  CHECK(types[1] == "varchar(384)" + exact);
}

TEST_CASE("mariadb types: column_type as information_schema prints it reads back") {
  for (std::string_view portable :
       {"boolean", "int16", "int32", "int64", "float32", "float64", "decimal(12,2)", "string(80)",
        "bytes", "uuid", "json", "date", "time(3)", "timestamp(6)"}) {
    const std::string made = mdb_type_for(parsed_type(portable));
    auto back = mdb::portable_of_mdb(made.substr(0, made.find(' ')));
    REQUIRE_MESSAGE(back, made);
    CHECK_MESSAGE(back->to_text() == portable, made);
  }
  // Display widths and unsigned integers (one size up: their range needs it).
  CHECK(mdb::portable_of_mdb("int(11)")->to_text() == "int32");
  CHECK(mdb::portable_of_mdb("tinyint(1)")->to_text() == "boolean");
  CHECK(mdb::portable_of_mdb("tinyint(4)")->to_text() == "int16");
  CHECK(mdb::portable_of_mdb("int(10) unsigned")->to_text() == "int64");
  CHECK(mdb::portable_of_mdb("bigint(20) unsigned")->to_text() == "decimal(20,0)");
  CHECK(mdb::portable_of_mdb("longtext")->to_text() == "string");
  CHECK(mdb::portable_of_mdb("char(36)")->to_text() == "string(36)");
  CHECK(mdb::portable_of_mdb("varbinary(1024)")->to_text() == "bytes");
  CHECK(mdb::portable_of_mdb("datetime")->to_text() == "timestamp(0)");
  CHECK(mdb::portable_of_mdb("timestamp(6)")->to_text() == "timestamptz(6)");
  CHECK_FALSE(mdb::portable_of_mdb("enum('a','b')"));
  CHECK_FALSE(mdb::portable_of_mdb("geometry"));
  CHECK_FALSE(mdb::portable_of_mdb("double unsigned zerofill"));
}

TEST_CASE("mariadb types: a number decimal(p,s) would round is told apart") {
  using mdb::decimal_fits;
  CHECK(decimal_fits("123.45", 5, 2));
  CHECK(decimal_fits("-123.4500", 5, 2));  // trailing zeros are not digits lost
  CHECK(decimal_fits("000123", 3, 0));
  CHECK(decimal_fits("0", 1, 0));
  CHECK(decimal_fits("0.000", 3, 0));
  CHECK(decimal_fits("1.5e2", 3, 0));
  CHECK(decimal_fits("1.5E-1", 3, 2));
  CHECK_FALSE(decimal_fits("1234.5", 5, 2));  // integer digits
  CHECK_FALSE(decimal_fits("12.345", 5, 2));  // a fraction MariaDB would round with a note
  CHECK_FALSE(decimal_fits("1e4", 5, 2));
  CHECK_FALSE(decimal_fits("1.5e-3", 5, 2));
  CHECK_FALSE(decimal_fits("1e999999999999999999999", 65, 30));
  // decimal(65,30): 35 integer digits, 30 fractional ones.
  CHECK(decimal_fits(std::string(35, '9') + "." + std::string(30, '9'), 65, 30));
  CHECK_FALSE(decimal_fits(std::string(36, '9'), 65, 30));
  CHECK_FALSE(decimal_fits("0." + std::string(30, '0') + "1", 65, 30));
  for (const char* junk : {"", "-", ".", "1e", "1.2.3", "NaN", "Infinity", "1e+", "0x10"})
    CHECK_FALSE_MESSAGE(decimal_fits(junk, 65, 30), junk);
}

}  // namespace
}  // namespace sluice
