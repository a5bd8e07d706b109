#include "schemas/common/timestamp_parser.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace sluice {
namespace {

constexpr int64_t ns = 1'000'000'000;

int64_t iso(std::string_view text, utc_offset zone = {}) {
  auto ts = parse_iso_timestamp(text, zone);
  if (!ts) FAIL_CHECK(ts.err().message);
  REQUIRE(ts.ok());
  return ts->value();
}

}  // namespace

TEST_CASE("ISO-8601 timestamps in their common spellings read as UTC nanoseconds") {
  CHECK(iso("1970-01-01T00:00:00Z") == 0);
  CHECK(iso("2019-11-07T02:15:39") == 1573092939 * ns);
  CHECK(iso("2019-11-07 02:15:39") == 1573092939 * ns);
  CHECK(iso("2019-11-07T02:15:39Z") == 1573092939 * ns);
  CHECK(iso("2019-11-07T02:15:39 UTC") == 1573092939 * ns);
  CHECK(iso("2019-11-07T04:15:39+02:00") == 1573092939 * ns);
  CHECK(iso("2019-11-07T04:15:39+0200") == 1573092939 * ns);
  CHECK(iso("2019-11-07T04:15:39+02") == 1573092939 * ns);
  CHECK(iso("2019-11-06T21:15:39-05:00") == 1573092939 * ns);
  CHECK(iso("2019-11-07T02:15") == (1573092939 - 39) * ns);
  CHECK(iso("2019-11-07") == (1573092939 - 2 * 3600 - 15 * 60 - 39) * ns);
  CHECK(iso("2019-11-07T07:37:16.808Z") == 1573112236 * ns + 808'000'000);
  CHECK(iso("2024-03-01T10:00:00.123456789Z") == 1709287200 * ns + 123'456'789);
  CHECK(iso("2024-03-01T10:00:00.1234567891234Z") == 1709287200 * ns + 123'456'789);
  CHECK(iso("1969-12-31T23:59:59.5Z") == -ns / 2);
  CHECK(iso("2024-02-29T00:00:00Z") == 1709164800 * ns);
  CHECK(iso("2024-03-01T24:00:00Z") == iso("2024-03-02T00:00:00Z"));
}

TEST_CASE("every date and time of the common spelling reads as std::chrono computes it") {
  // The common "YYYY-MM-DDTHH:MM:SS[.f][Z]" has a fast path; it must agree with the calendar
  // everywhere, leap years and month ends included, and leave errors to the general parser.
  using namespace std::chrono;
  for (int year : {1678, 1700, 1899, 1900, 1969, 1970, 2000, 2023, 2024, 2100, 2261}) {
    for (unsigned month = 1; month <= 12; ++month) {
      for (unsigned day : {1u, 28u, 29u, 30u, 31u}) {
        const year_month_day date{std::chrono::year{year}, std::chrono::month{month},
                                  std::chrono::day{day}};
        char text[64];
        std::snprintf(text, sizeof text, "%04d-%02u-%02uT23:59:58.25Z", year, month, day);
        CAPTURE(text);
        auto parsed = parse_iso_timestamp(text);
        if (!date.ok()) {
          CHECK_FALSE(parsed.ok());
          continue;
        }
        const int64_t expected =
            (sys_days{date}.time_since_epoch().count() * 86400 + 86398) * ns + 250'000'000;
        REQUIRE(parsed.ok());
        CHECK(parsed->value() == expected);
        std::snprintf(text, sizeof text, "%04d-%02u-%02u 23:59:58.25", year, month, day);
        CHECK(parse_iso_timestamp(text, utc_offset{-3600})->value() == expected + 3600 * ns);
      }
    }
  }
  CHECK(iso("2019-11-07T10:00:60Z") == iso("2019-11-07T10:01:00Z"));  // a leap second
  for (std::string_view bad :
       {"2019-11-07T10:00:00.Z", "2019-11-07T10:00:00ZZ", "2019-11-07T10:00:00z ",
        "2019-00-07T10:00:00", "2019-11-00T10:00:00", "2019-11-07T10:00:0a",
        "2262-04-11T23:47:16.854775808Z"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_iso_timestamp(bad).ok());
  }
  CHECK(iso("2262-04-11T23:47:16.854775807Z") == INT64_MAX);
}

TEST_CASE("a timestamp without a zone is read in the configured zone") {
  CHECK(iso("2019-11-07T04:15:39", utc_offset{7200}) == 1573092939 * ns);
  CHECK(iso("2019-11-07T04:15:39Z", utc_offset{7200}) == 1573092939 * ns + 7200 * ns);
}

TEST_CASE("malformed or impossible timestamps are errors, not guesses") {
  for (std::string_view bad :
       {"", "2019", "2019-11", "2019-13-01", "2019-02-29", "2019-11-07T25:00:00",
        "2019-11-07T10:60:00", "2019-11-07T10:00:61", "2019-11-07T10:00:00.", "2019-11-07T",
        "2019-11-07Tx", "2019-11-07T10:00:00+2", "2019-11-07T10:00:00+24:00",
        "2019-11-07T10:00:00 PST", "19-11-07", "2019/11/07", "9999-12-31T00:00:00Z",
        "1600-01-01T00:00:00Z", "2024-03-01T24:00:01Z"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_iso_timestamp(bad).ok());
  }
}

TEST_CASE("epoch milliseconds read as nanoseconds, fractions included") {
  CHECK(parse_epoch_millis("1573092939123")->value() == 1573092939123 * 1'000'000);
  CHECK(parse_epoch_millis("0")->value() == 0);
  CHECK(parse_epoch_millis("-5")->value() == -5'000'000);
  CHECK(parse_epoch_millis("1.5")->value() == 1'500'000);
  CHECK(parse_epoch_millis("1.0000015")->value() == 1'000'001);
  for (std::string_view bad : {"", "-", "1.", "1e3", "12a", " 1", "99999999999999999999"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_epoch_millis(bad).ok());
  }
}

TEST_CASE("parse_timestamp takes decimal text as epoch millis and the rest as ISO-8601") {
  CHECK(parse_timestamp("1573092939000")->value() == 1573092939 * ns);
  CHECK(parse_timestamp("2019-11-07T02:15:39Z")->value() == 1573092939 * ns);
  CHECK(parse_timestamp("2019-11-07T04:15:39", utc_offset{7200})->value() == 1573092939 * ns);
}

TEST_CASE("source timezones: UTC and fixed offsets, IANA names refused with the reason") {
  CHECK(parse_utc_offset("UTC")->seconds == 0);
  CHECK(parse_utc_offset("Z")->seconds == 0);
  CHECK(parse_utc_offset("+02:00")->seconds == 7200);
  CHECK(parse_utc_offset("-05:30")->seconds == -19800);
  CHECK(parse_utc_offset("+0545")->seconds == 20700);
  CHECK(parse_utc_offset("+09")->seconds == 32400);
  auto iana = parse_utc_offset("America/New_York");
  REQUIRE_FALSE(iana.ok());
  CHECK(iana.err().code == error_code::unsupported);
  CHECK(iana.err().message.find("IANA") != std::string::npos);
  for (std::string_view bad : {"", "+2", "+24:00", "+02:60", "CET", "02:00", "+02:00x"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_utc_offset(bad).ok());
  }
}

}  // namespace sluice
