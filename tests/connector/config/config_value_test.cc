#include "connector/config/config_value.h"

#include <doctest/doctest.h>

#include "connector/config/did_you_mean.h"

using namespace sluice;
using namespace std::chrono_literals;

TEST_CASE("durations are numbers with units, alone or summed") {
  CHECK(parse_duration("500ms") == 500ms);
  CHECK(parse_duration("30s") == 30s);
  CHECK(parse_duration("15m") == 15min);
  CHECK(parse_duration("24h") == 24h);
  CHECK(parse_duration("7d") == 168h);
  CHECK(parse_duration("1h30m") == 90min);
  CHECK(parse_duration("0s") == 0ms);
  for (const char* bad : {"", "10", "h", "1.5h", "-1s", "1 h", "1y", "1hh", "99999999999999999d"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_duration(bad).has_value());
  }
}

TEST_CASE("a duration prints in its largest whole unit") {
  CHECK(format_duration(24h) == "24h");
  CHECK(format_duration(90min) == "90m");
  CHECK(format_duration(1500ms) == "1500ms");
  CHECK(format_duration(std::chrono::hours(24 * 3650)) == "3650d");
  CHECK(format_duration(0ms) == "0ms");
}

TEST_CASE("sizes are bytes or a number with a binary unit") {
  CHECK(parse_size("1048576") == 1048576);
  CHECK(parse_size("64MiB") == 64 << 20);
  CHECK(parse_size("1 GiB") == std::int64_t{1} << 30);
  CHECK(parse_size("512B") == 512);
  for (const char* bad : {"", "MiB", "1MB", "1.5MiB", "-1", "99999999999TiB"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_size(bad).has_value());
  }
  CHECK(format_size(64 << 20) == "64MiB");
  CHECK(format_size(1000) == "1000");
}

TEST_CASE("integers are plain decimal") {
  CHECK(parse_config_integer("10000") == 10000);
  CHECK(parse_config_integer("-3") == -3);
  for (const char* bad : {"", "+3", "1e4", "0x10", "10_000", "3 ", "lots"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_config_integer(bad).has_value());
  }
}

TEST_CASE("a comma-separated string is a list") {
  CHECK(split_list("a, b ,c") == std::vector<std::string>{"a", "b", "c"});
  CHECK(split_list("  ").empty());
  CHECK(split_list("a,,b") == std::vector<std::string>{"a", "", "b"});
}

TEST_CASE("strings print plain unless YAML would read them differently") {
  CHECK(yaml_scalar("orders-replica") == "orders-replica");
  CHECK(yaml_scalar("127.0.0.1:9464") == "127.0.0.1:9464");
  CHECK(yaml_scalar("${schema}.${table}") == "${schema}.${table}");
  CHECK(yaml_scalar("") == "\"\"");
  CHECK(yaml_scalar("true") == "\"true\"");
  CHECK(yaml_scalar("10000") == "\"10000\"");
  CHECK(yaml_scalar("***") == "\"***\"");
  CHECK(yaml_scalar("a: b") == "\"a: b\"");
  CHECK(yaml_scalar("varchar(40)") == "varchar(40)");
  CHECK(yaml_scalar("numeric(38,9)", true) == "\"numeric(38,9)\"");
  CHECK(yaml_scalar("say \"hi\"\n") == "\"say \\\"hi\\\"\\n\"");
}

TEST_CASE("a near miss is suggested and a far one is not") {
  const std::string_view names[] = {"batch.size", "batch.max.bytes", "kafka"};
  CHECK(closest_match("batch.szie", names) == "batch.size");
  CHECK(closest_match("kafak", names) == "kafka");
  CHECK_FALSE(closest_match("postgres", names).has_value());
  CHECK(edit_distance("ab", "ba") == 1);
  CHECK(edit_distance("", "abc") == 3);
}
