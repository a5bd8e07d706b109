// java_date_format: SimpleDateFormat patterns (TimestampConverter's `format`) translated once,
// formatting and parsing in UTC; what it does not support is refused by name at construction.
#include "connector/prepare/transforms/java_date_format.h"

#include <doctest/doctest.h>

#include <chrono>
#include <stdexcept>
#include <string>

using namespace sluice;
using namespace std::chrono;

namespace {

using instant = java_date_format::instant;

instant at(int y, unsigned m, unsigned d, int h = 0, int min = 0, int s = 0, int64_t us = 0) {
  return instant(sys_days(year(y) / month(m) / day(d))) + hours(h) + minutes(min) + seconds(s) +
         microseconds(us);
}

std::string formatted(const std::string& pattern, instant t) {
  std::string out;
  REQUIRE(java_date_format(pattern).format(t, out));
  return out;
}

instant parsed(const std::string& pattern, const std::string& text) {
  auto r = java_date_format(pattern, year(1950)).parse(text);
  if (auto* why = std::get_if<std::string>(&r)) FAIL("not parsed: " << *why);
  return std::get<instant>(r);
}

std::string not_parsed(const std::string& pattern, const std::string& text) {
  auto r = java_date_format(pattern).parse(text);
  REQUIRE_MESSAGE(std::holds_alternative<std::string>(r), "parsed");
  return std::get<std::string>(r);
}

std::string refusal(const std::string& pattern) {
  try {
    java_date_format f(pattern);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("numeric fields format zero-padded to their letters' count, in UTC") {
  const instant t = at(2024, 3, 5, 7, 8, 9, 45'600);
  CHECK(formatted("yyyy-MM-dd HH:mm:ss.SSS", t) == "2024-03-05 07:08:09.045");
  CHECK(formatted("yyyy-MM-dd'T'HH:mm:ss.SSSZ", t) == "2024-03-05T07:08:09.045+0000");
  CHECK(formatted("yy/M/d H:m:s", t) == "24/3/5 7:8:9");
  CHECK(formatted("yyyyMMddHHmmss", t) == "20240305070809");
  CHECK(formatted("y", at(33, 1, 1)) == "33");
  CHECK(formatted("yyyyy", t) == "02024");
  // Java's S counts milliseconds: six letters pad 45 ms to six digits, not a fraction.
  CHECK(formatted("SSSSSS", t) == "000045");
  CHECK(formatted("S", t) == "45");
  CHECK(formatted("X|XX|XXX", t) == "Z|Z|Z");
}

TEST_CASE("quoted text is literal, and two quotes are one") {
  const instant t = at(2024, 3, 5, 7);
  CHECK(formatted("HH 'o''clock' ''yy''", t) == "07 o'clock '24'");
  CHECK(formatted("'yyyy' yyyy", t) == "yyyy 2024");
  CHECK(refusal("yyyy 'oops").find("unterminated quote") != std::string::npos);
}

TEST_CASE("a year outside 1..9999 is not formatted") {
  std::string out = "kept";
  CHECK_FALSE(java_date_format("yyyy").format(at(10000, 1, 1), out));
  CHECK(out == "kept");
}

TEST_CASE("parsing reads the fields the pattern names, the rest of the epoch's start") {
  CHECK(parsed("yyyy-MM-dd HH:mm:ss.SSS", "2024-03-05 07:08:09.045") ==
        at(2024, 3, 5, 7, 8, 9, 45'000));
  CHECK(parsed("yyyy-MM-dd", "2024-02-29") == at(2024, 2, 29));
  CHECK(parsed("HH:mm", "13:45") == at(1970, 1, 1, 13, 45));
  CHECK(parsed("yyyy-M-d", "2024-3-5") == at(2024, 3, 5));  // digits taken greedily
  CHECK(parsed("yyyy-M-d", "2024-03-05") == at(2024, 3, 5));
  CHECK(parsed("yyyyMMddHHmm", "202403050708") == at(2024, 3, 5, 7, 8));   // abutting
  CHECK(parsed("dd/MM/yyyy", "05/03/2024 and more") == at(2024, 3, 5));    // as Java's parse
  CHECK(parsed("yyyy-MM-dd  HH", "2024-03-05   7") == at(2024, 3, 5, 7));  // blanks skipped
}

TEST_CASE("a parsed offset moves the instant to UTC") {
  CHECK(parsed("yyyy-MM-dd HH:mmZ", "2024-03-05 07:00+0130") == at(2024, 3, 5, 5, 30));
  CHECK(parsed("yyyy-MM-dd HH:mmXXX", "2024-03-05 07:00-02:00") == at(2024, 3, 5, 9));
  CHECK(parsed("yyyy-MM-dd HH:mmX", "2024-03-05 07:00Z") == at(2024, 3, 5, 7));
  CHECK(parsed("yyyy-MM-dd HH:mmX", "2024-03-05 07:00+01") == at(2024, 3, 5, 6));
  CHECK(not_parsed("HH:mmX", "07:00 CET").find("offset") != std::string::npos);
}

TEST_CASE("two-digit years fall within 80 years before and 20 after the century start") {
  // Century start 1950: 50..99 -> 1950..1999, 00..49 -> 2000..2049.
  CHECK(parsed("yy-MM-dd", "49-01-01") == at(2049, 1, 1));
  CHECK(parsed("yy-MM-dd", "50-01-01") == at(1950, 1, 1));
  CHECK(parsed("yy-MM-dd", "99-01-01") == at(1999, 1, 1));
  CHECK(parsed("yy-MM-dd", "2024-01-01") == at(2024, 1, 1));  // not two digits: literal
  CHECK(parsed("yyyy", "24") == at(24, 1, 1));                // yyyy: always literal
}

TEST_CASE("impossible dates and times and mismatched text are refused, not rolled over") {
  CHECK(not_parsed("yyyy-MM-dd", "2023-02-29") == "no such date");
  CHECK(not_parsed("yyyy-MM-dd", "2024-13-01") == "no such date");
  CHECK(not_parsed("HH:mm", "24:00") == "no such time of day");
  CHECK(not_parsed("ss.SSS", "05.1234") == "no such time of day");
  CHECK(not_parsed("yyyy-MM-dd", "2024/03/05").find("expected '-'") != std::string::npos);
  CHECK(not_parsed("yyyy-MM-dd", "yesterday").find("expected a number") != std::string::npos);
  CHECK(not_parsed("yyyyMMdd", "202403").find("expected a number") != std::string::npos);
}

TEST_CASE("unsupported pattern letters are refused at construction, each named") {
  const std::string why = refusal("EEE, dd MMM yyyy hh:mm a z");
  CHECK(why.starts_with("format 'EEE, dd MMM yyyy hh:mm a z': unsupported"));
  CHECK(why.find("EEE (day name)") != std::string::npos);
  CHECK(why.find("MMM (month name)") != std::string::npos);
  CHECK(why.find("hh (12-hour clock)") != std::string::npos);
  CHECK(why.find("a (am/pm marker)") != std::string::npos);
  CHECK(why.find("z (zone name)") != std::string::npos);
  CHECK(refusal("G yyyy").find("G (era)") != std::string::npos);
  CHECK(refusal("YYYY-ww").find("YYYY (week year), ww (week)") != std::string::npos);
  CHECK(refusal("D").find("day in year") != std::string::npos);
  CHECK(refusal("XXXX").find("XXXX") != std::string::npos);
  CHECK(refusal("yyyy-MM-dd qq").find("qq (not a SimpleDateFormat letter)") != std::string::npos);
  CHECK(refusal("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").empty());
}
