#include "schemas/common/timestamp_parser.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace sluice {
namespace {

constexpr int64_t ns = 1'000'000'000;

int64_t iso(std::string_view text, const source_zone& zone = {}) {
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
        CHECK(parse_iso_timestamp(text, source_zone::fixed(-3600))->value() ==
              expected + 3600 * ns);
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
  CHECK(iso("2019-11-07T04:15:39", source_zone::fixed(7200)) == 1573092939 * ns);
  CHECK(iso("2019-11-07T04:15:39Z", source_zone::fixed(7200)) == 1573092939 * ns + 7200 * ns);
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
  CHECK(parse_timestamp("2019-11-07T04:15:39", source_zone::fixed(7200))->value() ==
        1573092939 * ns);
}

TEST_CASE("source timezones: UTC and fixed offsets read as before") {
  CHECK(parse_source_zone("UTC")->fixed_seconds() == 0);
  CHECK(parse_source_zone("Z")->fixed_seconds() == 0);
  CHECK(parse_source_zone("Etc/UTC")->is_fixed());
  CHECK(parse_source_zone("+02:00")->fixed_seconds() == 7200);
  CHECK(parse_source_zone("-05:30")->fixed_seconds() == -19800);
  CHECK(parse_source_zone("+0545")->fixed_seconds() == 20700);
  CHECK(parse_source_zone("+09")->fixed_seconds() == 32400);
  // A fixed offset knows no DST: the same offset on both sides of Paris's changes.
  const source_zone plus_two = *parse_source_zone("+02:00");
  CHECK(iso("2026-01-15T13:00:00", plus_two) == 1768474800 * ns);
  CHECK(iso("2026-10-25T02:30:00", plus_two) == 1792888200 * ns);
  for (std::string_view bad : {"", "+2", "+24:00", "+02:60", "02:00", "+02:00x", "+02:"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_source_zone(bad).ok());
  }
}

TEST_CASE("an IANA zone name unknown to the tz database is refused, naming it") {
  for (std::string_view bad : {"Mars/Olympus_Mons", "Europe/Pariss", "europe/paris", "CEST"}) {
    CAPTURE(bad);
    auto zone = parse_source_zone(bad);
    REQUIRE_FALSE(zone.ok());
    CHECK(zone.err().message.find(std::string(bad)) != std::string::npos);
    CHECK(zone.err().message.find("time zone database") != std::string::npos);
  }
}

// Expected instants checked against PostgreSQL 15:
//   SELECT '<local>'::timestamp AT TIME ZONE 'Europe/Paris'
TEST_CASE("Europe/Paris: +01:00 in winter, +02:00 in summer, on both parser paths") {
  auto paris = parse_source_zone("Europe/Paris");
  REQUIRE(paris.ok());
  CHECK(paris->name() == "Europe/Paris");
  CHECK_FALSE(paris->is_fixed());
  CHECK(iso("2026-01-15T12:00:00", *paris) == 1768474800 * ns);
  CHECK(iso("2026-07-15T12:00:00", *paris) == 1784109600 * ns);
  CHECK(iso("2026-01-15 12:00", *paris) == 1768474800 * ns);  // the general parser
  CHECK(iso("2026-07-15T12:00:00.5", *paris) == 1784109600 * ns + ns / 2);
  CHECK(parse_timestamp("2026-07-15T12:00:00", *paris)->value() == 1784109600 * ns);
  // A written zone wins over the topic's.
  CHECK(iso("2026-07-15T12:00:00Z", *paris) == 1784116800 * ns);
  CHECK(iso("2026-07-15T12:00:00+00:00", *paris) == 1784116800 * ns);
  // Past 2037, where the tzdata file's listed transitions end, its POSIX rule still applies.
  CHECK(iso("2045-07-01T12:00:00", *paris) == 2382516000 * ns);
  CHECK(iso("2045-01-01T12:00:00", *paris) == (2382516000 - 181 * 86400 + 3600) * ns);
}

TEST_CASE(
    "an ambiguous local time (DST fall-back) is read with the smaller offset, as PostgreSQL") {
  const auto paris = *parse_source_zone("Europe/Paris");
  // 2026-10-25: 03:00 CEST becomes 02:00 CET; 02:00-02:59 happens at 00:xxZ and again at 01:xxZ.
  CHECK(iso("2026-10-25T01:59:59", paris) == 1792886399 * ns);  // +02:00, before the change
  CHECK(iso("2026-10-25T02:30:00", paris) == 1792891800 * ns);  // 01:30Z: +01:00, the later one
  CHECK(iso("2026-10-25 02:30", paris) == 1792891800 * ns);
  CHECK(iso("2026-10-25T03:00:00", paris) == 1792893600 * ns);  // +01:00
  CHECK(iso("2045-10-29T02:30:00", paris) == 2392853400 * ns);  // the POSIX rule, same choice
  const auto new_york = *parse_source_zone("America/New_York");
  CHECK(iso("2026-11-01T01:30:00", new_york) == 1793514600 * ns);  // 06:30Z: EST, -05:00
}

TEST_CASE(
    "a skipped local time (DST spring-forward gap) is read with the smaller offset, as "
    "PostgreSQL") {
  const auto paris = *parse_source_zone("Europe/Paris");
  // 2026-03-29: 02:00 CET becomes 03:00 CEST; 02:00-02:59 never happens.
  CHECK(iso("2026-03-29T01:59:59", paris) == 1774745999 * ns);  // +01:00
  CHECK(iso("2026-03-29T02:30:00", paris) == 1774747800 * ns);  // 01:30Z, i.e. 03:30+02:00
  CHECK(iso("2026-03-29 02:30", paris) == 1774747800 * ns);
  CHECK(iso("2026-03-29T03:00:00", paris) == 1774746000 * ns);  // +02:00: 01:00Z
  CHECK(iso("2045-03-26T02:30:00", paris) == 2374104600 * ns);  // the POSIX rule, same choice
  const auto new_york = *parse_source_zone("America/New_York");
  CHECK(iso("2026-03-08T02:30:00", new_york) == 1772955000 * ns);  // 07:30Z: -05:00
}

TEST_CASE("IANA zones without DST: a constant offset, also past 2037") {
  const auto kolkata = *parse_source_zone("Asia/Kolkata");
  CHECK(iso("2026-01-15T16:30:00", kolkata) == 1768474800 * ns);
  CHECK(iso("2045-07-01T15:30:00", kolkata) == 2382516000 * ns);
  const auto gmt_plus_3 = *parse_source_zone("Etc/GMT+3");  // POSIX sign: three hours west
  CHECK(iso("2026-01-15T08:00:00", gmt_plus_3) == 1768474800 * ns);
  CHECK(iso("2045-07-01T07:00:00", gmt_plus_3) == 2382516000 * ns);
}

TEST_CASE("zones compare by offset or by name") {
  const auto a = *parse_source_zone("Europe/Paris");
  const source_zone b = a;
  CHECK(a == b);
  CHECK(a == *parse_source_zone("Europe/Paris"));
  CHECK_FALSE(a == *parse_source_zone("Europe/Berlin"));
  CHECK_FALSE(a == source_zone{});
  CHECK(source_zone::fixed(3600) == *parse_source_zone("+01:00"));
}

}  // namespace sluice
