#include "schemas/common/position_parser.h"

#include <doctest/doctest.h>

#include <limits>
#include <string>

namespace sluice {

TEST_CASE("PostgreSQL LSNs read as hi<<32|lo, so that 0/FFFFFF0 < 0/10000008") {
  CHECK(parse_pg_lsn("16/B374D848") == (uint64_t{0x16} << 32 | 0xB374D848));
  CHECK(parse_pg_lsn("0/FFFFFF0") == 0xFFFFFF0);
  CHECK(parse_pg_lsn("0/10000008") == 0x10000008);
  CHECK(*parse_pg_lsn("0/FFFFFF0") < *parse_pg_lsn("0/10000008"));
  CHECK(parse_pg_lsn("ffffffff/ffffffff") == std::numeric_limits<uint64_t>::max());
  for (std::string_view bad :
       {"", "/", "0/", "/1", "16B374D848", "1/2/3", "g/1", "123456789/0", "0/-1", " 0/1"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_pg_lsn(bad).has_value());
  }
}

TEST_CASE("integers sent as numbers or strings read as the numbers they are") {
  CHECK(parse_integer("42") == 42);
  CHECK(parse_integer("0042") == 42);
  CHECK(parse_integer("-7") == -7);
  CHECK(parse_integer("4.2e1") == 42);
  CHECK(parse_integer("42.000") == 42);
  CHECK(parse_integer("9223372036854775807") == std::numeric_limits<int64_t>::max());
  CHECK(parse_integer("-9223372036854775808") == std::numeric_limits<int64_t>::min());
  for (std::string_view bad :
       {"", "9223372036854775808", "4.5", "1e400", "abc", "+1", " 1", "1 ", "0x10", "-"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_integer(bad).has_value());
  }
}

TEST_CASE("integers of every width read exactly, around the 18-digit fast path") {
  int64_t v = 0;
  for (int digits = 1; digits <= 19; ++digits) {
    v = v * 10 + digits % 10;
    CAPTURE(v);
    CHECK(parse_integer(std::to_string(v)) == v);
    CHECK(parse_integer(std::to_string(-v)) == -v);
    CHECK(parse_integer("000" + std::to_string(v)) == v);
  }
  CHECK(parse_integer("999999999999999999") == 999'999'999'999'999'999);
  CHECK(parse_integer("-999999999999999999") == -999'999'999'999'999'999);
  CHECK(parse_integer("-0") == 0);
  for (std::string_view bad : {"12a", "1-2", "--1", "- 1", "12 "}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_integer(bad).has_value());
  }
}

TEST_CASE("binlog file names split into base and numeric sequence") {
  auto f = split_log_file("mysql-bin.000010");
  REQUIRE(f.has_value());
  CHECK(f->base == "mysql-bin");
  CHECK(f->sequence == 10);
  CHECK(split_log_file("mysql-bin.1000000")->sequence == 1000000);
  CHECK(split_log_file("binlog7")->sequence == 7);
  CHECK(split_log_file("binlog7")->base == "binlog");
  CHECK_FALSE(split_log_file("").has_value());
  CHECK_FALSE(split_log_file("mysql-bin.index").has_value());
  CHECK_FALSE(split_log_file("mysql-bin.99999999999999999999").has_value());
}

TEST_CASE("fixed-width hex positions normalize to one byte-comparable spelling") {
  CHECK(normalize_hex_position("00000027:00000AC0:0002") == "00000027:00000ac0:0002");
  CHECK(normalize_hex_position(" 0x0073C9.000a4e4c.01D0 ") == "0x0073c9.000a4e4c.01d0");
  CHECK(normalize_hex_position("00000027:00000ac0:0002") <
        normalize_hex_position("00000027:00000AC0:0003"));
}

}  // namespace sluice
