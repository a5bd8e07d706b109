#include "schemas/common/timestamp_parser.h"

#include <chrono>
#include <optional>
#include <string>

namespace sluice {
namespace {

constexpr int64_t ns_per_second = 1'000'000'000;
constexpr int64_t ns_per_milli = 1'000'000;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Reads exactly n digits at text[i], advancing i.
bool read_digits(std::string_view text, size_t& i, size_t n, int& out) {
  if (text.size() - i < n) return false;
  out = 0;
  for (size_t k = 0; k < n; ++k) {
    if (!is_digit(text[i + k])) return false;
    out = out * 10 + (text[i + k] - '0');
  }
  i += n;
  return true;
}

error bad(std::string_view what, std::string_view text) {
  return make_error(error_code::wrong_type,
                    std::string(what) + ": \"" + std::string(text.substr(0, 64)) + "\"");
}

// "±HH[:MM]" or "±HHMM" at text[i..]: the whole rest of the text.
bool read_offset(std::string_view text, size_t i, int32_t& seconds) {
  const auto offset = parse_offset_text(text.substr(i));
  if (offset) seconds = *offset;
  return offset.has_value();
}

// Days from 1970-01-01 to a valid proleptic Gregorian date (H. Hinnant's days_from_civil,
// what std::chrono::sys_days computes).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// The common spelling "YYYY-MM-DDTHH:MM:SS[.fraction][Z]" (T, t or a space), read with
// fixed positions. Nothing for any other text or any out-of-range field: the general parser
// then reads it or says what is wrong, so this only ever returns what it would. Its failures
// are marked unlikely: with a dozen early exits GCC judged the date arithmetic cold and
// compiled its divisions by constants as idiv (~40 cycles each, four per timestamp).
std::optional<int64_t> parse_common_iso(std::string_view text, const source_zone& zone) {
  if (text.size() < 19) [[unlikely]] {
    return std::nullopt;
  }
  const char* p = text.data();
  const auto two = [p](size_t i) {
    const unsigned a = static_cast<unsigned char>(p[i]) - '0';
    const unsigned b = static_cast<unsigned char>(p[i + 1]) - '0';
    return a > 9 || b > 9 ? -1 : static_cast<int>(a * 10 + b);
  };
  const int century = two(0), year_in = two(2), month = two(5), day = two(8);
  const int hour = two(11), minute = two(14), second = two(17);
  if ((century | year_in | month | day | hour | minute | second) < 0 || p[4] != '-' ||
      p[7] != '-' || (p[10] != 'T' && p[10] != 't' && p[10] != ' ') || p[13] != ':' || p[16] != ':')
      [[unlikely]] {
    return std::nullopt;
  }
  size_t i = 19;
  int64_t fraction_ns = 0;
  if (i < text.size() && p[i] == '.') {
    ++i;
    int64_t scale = ns_per_second / 10;
    const size_t start = i;
    for (; i < text.size() && is_digit(p[i]); ++i, scale /= 10) {
      fraction_ns += (p[i] - '0') * scale;
    }
    if (i == start) [[unlikely]] {
      return std::nullopt;
    }
  }
  bool in_utc = false;
  if (i < text.size()) {
    if (text.size() - i != 1 || (p[i] != 'Z' && p[i] != 'z')) [[unlikely]] {
      return std::nullopt;
    }
    in_utc = true;
  }
  const int year = century * 100 + year_in;
  static constexpr int month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) [[unlikely]] {
    return std::nullopt;
  }
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (day > month_days[month - 1] + (month == 2 && leap)) [[unlikely]] {
    return std::nullopt;
  }
  const int64_t local =
      days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  const int64_t seconds = local - (in_utc ? 0 : zone.offset_at_local(local));
  int64_t ns = 0;
  if (__builtin_mul_overflow(seconds, ns_per_second, &ns) ||
      __builtin_add_overflow(ns, fraction_ns, &ns)) [[unlikely]] {
    return std::nullopt;
  }
  return ns;
}

}  // namespace

result<timestamp_ns> parse_iso_timestamp(std::string_view text, const source_zone& zone) {
  if (const auto ns = parse_common_iso(text, zone)) return timestamp_ns{*ns};
  size_t i = 0;
  int year = 0;
  int month = 0;
  int day = 0;
  if (!read_digits(text, i, 4, year) || i >= text.size() || text[i++] != '-' ||
      !read_digits(text, i, 2, month) || i >= text.size() || text[i++] != '-' ||
      !read_digits(text, i, 2, day)) {
    return bad("not an ISO-8601 timestamp", text);
  }
  const std::chrono::year_month_day date{std::chrono::year{year},
                                         std::chrono::month{static_cast<unsigned>(month)},
                                         std::chrono::day{static_cast<unsigned>(day)}};
  if (!date.ok()) return bad("no such date", text);

  int hour = 0;
  int minute = 0;
  int second = 0;
  int64_t fraction_ns = 0;
  if (i < text.size() && (text[i] == 'T' || text[i] == 't' || text[i] == ' ') &&
      i + 1 < text.size() && is_digit(text[i + 1])) {
    ++i;
    if (!read_digits(text, i, 2, hour) || i >= text.size() || text[i++] != ':' ||
        !read_digits(text, i, 2, minute)) {
      return bad("not an ISO-8601 timestamp", text);
    }
    if (i < text.size() && text[i] == ':') {
      ++i;
      if (!read_digits(text, i, 2, second)) return bad("not an ISO-8601 timestamp", text);
      if (i < text.size() && (text[i] == '.' || text[i] == ',')) {
        ++i;
        int64_t scale = ns_per_second / 10;
        const size_t start = i;
        for (; i < text.size() && is_digit(text[i]); ++i, scale /= 10) {
          fraction_ns += (text[i] - '0') * scale;
        }
        if (i == start) return bad("not an ISO-8601 timestamp", text);
      }
    }
    // 24:00:00 is the end of the day; 60 seconds is a leap second, read as the next minute.
    if (hour > 24 || minute > 59 || second > 60 ||
        (hour == 24 && (minute | second | fraction_ns) != 0)) {
      return bad("no such time of day", text);
    }
  }

  std::optional<int32_t> offset;  // none: the time is local to `zone`
  if (i < text.size()) {
    const std::string_view rest = text.substr(i);
    int32_t written = 0;
    if (rest == "Z" || rest == "z" || rest == " UTC" || rest == " Z") {
      offset = 0;
    } else if (read_offset(text, i, written)) {
      offset = written;
    } else {
      return bad("not an ISO-8601 timestamp", text);
    }
  }

  const int64_t days = std::chrono::sys_days{date}.time_since_epoch().count();
  const int64_t local = days * 86400 + hour * 3600 + minute * 60 + second;
  const int64_t seconds = local - (offset ? *offset : zone.offset_at_local(local));
  int64_t ns = 0;
  if (__builtin_mul_overflow(seconds, ns_per_second, &ns) ||
      __builtin_add_overflow(ns, fraction_ns, &ns)) {
    return bad("timestamp out of range (years 1677 to 2262)", text);
  }
  return timestamp_ns{ns};
}

result<timestamp_ns> parse_epoch_millis(std::string_view text) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  const size_t start = i;
  int64_t millis = 0;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    if (__builtin_mul_overflow(millis, 10, &millis) ||
        __builtin_add_overflow(millis, text[i] - '0', &millis)) {
      return bad("epoch milliseconds out of range", text);
    }
  }
  if (i == start) return bad("not epoch milliseconds", text);
  int64_t fraction_ns = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    int64_t scale = ns_per_milli / 10;
    const size_t fraction_start = i;
    for (; i < text.size() && is_digit(text[i]); ++i, scale /= 10) {
      fraction_ns += (text[i] - '0') * scale;
    }
    if (i == fraction_start) return bad("not epoch milliseconds", text);
  }
  if (i != text.size()) return bad("not epoch milliseconds", text);
  int64_t ns = 0;
  if (__builtin_mul_overflow(millis, ns_per_milli, &ns) ||
      __builtin_add_overflow(ns, fraction_ns, &ns)) {
    return bad("epoch milliseconds out of range", text);
  }
  return timestamp_ns{negative ? -ns : ns};
}

result<timestamp_ns> parse_timestamp(std::string_view text, const source_zone& zone) {
  size_t i = (!text.empty() && text[0] == '-') ? 1 : 0;
  bool plain_number = i < text.size();
  for (; i < text.size() && plain_number; ++i) {
    plain_number = is_digit(text[i]) || text[i] == '.';
  }
  return plain_number ? parse_epoch_millis(text) : parse_iso_timestamp(text, zone);
}

}  // namespace sluice
