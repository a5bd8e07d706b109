#include "sinks/mariadb/write/value_text.h"

#include <cstdio>

#include "core/model/base64.h"
#include "core/model/json_text.h"
#include "sinks/mariadb/sql/write_sql.h"

namespace sluice::mdb {
namespace {

bool starts_with_word(std::string_view type, std::string_view word) {
  return type.substr(0, word.size()) == word &&
         (type.size() == word.size() || type[word.size()] == '(' || type[word.size()] == ' ');
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const auto doy = static_cast<unsigned>((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1);
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void civil_from_days(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

// n digits at text[at], as a number; -1 when they are not all digits.
int digits(std::string_view text, size_t at, size_t n) {
  if (at + n > text.size()) return -1;
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

void append_fields(std::string& out, int64_t y, unsigned mo, unsigned d, int64_t seconds_of_day,
                   int64_t micros) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u %02lld:%02lld:%02lld.%06lld",
                static_cast<long long>(y), mo, d, static_cast<long long>(seconds_of_day / 3600),
                static_cast<long long>(seconds_of_day / 60 % 60),
                static_cast<long long>(seconds_of_day % 60), static_cast<long long>(micros));
  out += buf;
}

}  // namespace

value_target target_of(std::string_view type) {
  if (is_binary_type(type)) return value_target::binary;
  if (starts_with_word(type, "json")) return value_target::json;
  if (starts_with_word(type, "datetime") || starts_with_word(type, "timestamp"))
    return value_target::datetime;
  for (const char* n : {"tinyint", "smallint", "mediumint", "int", "integer", "bigint", "decimal",
                        "numeric", "float", "double", "real", "bit", "year", "bool", "boolean"}) {
    if (starts_with_word(type, n)) return value_target::number;
  }
  return value_target::text;
}

bool append_utc_datetime(std::string& out, std::string_view t) {
  // YYYY-MM-DD[T ]HH:MM[:SS[.f…]][Z | ±HH[:MM] | ±HHMM]
  const int y = digits(t, 0, 4), mo = digits(t, 5, 2), d = digits(t, 8, 2);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || t.size() < 16 || t[4] != '-' ||
      t[7] != '-' || (t[10] != 'T' && t[10] != 't' && t[10] != ' ') || t[13] != ':')
    return false;
  const int h = digits(t, 11, 2), mi = digits(t, 14, 2);
  if (h < 0 || h > 23 || mi < 0 || mi > 59) return false;
  int s = 0;
  size_t at = 16;
  if (at < t.size() && t[at] == ':') {
    s = digits(t, at + 1, 2);
    if (s < 0 || s > 59) return false;
    at += 3;
  }
  int64_t micros = 0;
  if (at < t.size() && (t[at] == '.' || t[at] == ',')) {
    size_t n = 0;
    ++at;
    while (at < t.size() && t[at] >= '0' && t[at] <= '9') {
      if (n < 6) micros = micros * 10 + (t[at] - '0');
      ++n;
      ++at;
    }
    if (n == 0) return false;
    for (size_t k = n; k < 6; ++k)
      micros *= 10;
  }
  int64_t offset = 0;  // seconds east of UTC
  const std::string_view zone = t.substr(at);
  if (zone == "Z" || zone == "z") {
  } else if (!zone.empty()) {
    if (zone[0] != '+' && zone[0] != '-') return false;
    const int zh = digits(zone, 1, 2);
    int zm = 0;
    if (zone.size() == 6 && zone[3] == ':') {
      zm = digits(zone, 4, 2);
    } else if (zone.size() == 5) {
      zm = digits(zone, 3, 2);
    } else if (zone.size() != 3) {
      return false;
    }
    if (zh < 0 || zh > 23 || zm < 0 || zm > 59) return false;
    offset = (zh * 3600 + zm * 60) * (zone[0] == '-' ? -1 : 1);
  }
  const int64_t month_days =
      (mo == 12 ? days_from_civil(y + 1, 1, 1) : days_from_civil(y, mo + 1, 1)) -
      days_from_civil(y, mo, 1);
  if (d > month_days) return false;  // 2026-02-30: left for the server to refuse
  int64_t seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset;
  int64_t days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
  int64_t yy;
  unsigned mm, dd;
  civil_from_days(days, yy, mm, dd);
  append_fields(out, yy, mm, dd, seconds - days * 86400, micros);
  return true;
}

void append_utc_micros(std::string& out, int64_t micros) {
  const int64_t seconds = micros >= 0 ? micros / 1'000'000 : (micros - 999'999) / 1'000'000;
  const int64_t days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
  int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  append_fields(out, y, m, d, seconds - days * 86400, micros - seconds * 1'000'000);
}

rendered_value render_value(const value& v, value_target t, std::string& scratch) {
  using form = rendered_value::form;
  if (v.is_null() || v.is_absent()) return {};
  switch (t) {
    case value_target::json:
      scratch.clear();
      append_json_value(scratch, v);
      return {form::text, scratch};
    case value_target::binary:
      if (v.kind == value_kind::bytes) return {form::bytes, v.text};
      break;
    case value_target::number:
      if (v.kind == value_kind::boolean) return {form::text, v.text == "true" ? "1" : "0"};
      break;
    case value_target::datetime:
      if (v.kind == value_kind::string) {
        scratch.clear();
        if (append_utc_datetime(scratch, v.text)) return {form::text, scratch};
      }
      break;
    case value_target::text:
      break;
  }
  if (v.kind == value_kind::bytes) {
    scratch.clear();
    append_base64(scratch, v.text);
    return {form::text, scratch};
  }
  return {form::text, v.text};
}

}  // namespace sluice::mdb
