#include "connector/prepare/transforms/java_date_format.h"

#include <optional>
#include <stdexcept>

namespace sluice {
namespace {

using namespace std::chrono;

bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// What SimpleDateFormat means by the letters sluice does not support, for the refusal.
std::string_view unsupported_meaning(char letter, int count) {
  switch (letter) {
    case 'M':
    case 'L':
      return count >= 3 ? "month name" : "stand-alone month";
    case 'G':
      return "era";
    case 'E':
      return "day name";
    case 'u':
      return "day number of week";
    case 'w':
    case 'W':
      return "week";
    case 'Y':
      return "week year";
    case 'D':
      return "day in year";
    case 'F':
      return "day of week in month";
    case 'a':
      return "am/pm marker";
    case 'h':
    case 'K':
      return "12-hour clock";
    case 'k':
      return "hour 1-24";
    case 'z':
      return "zone name";
    case 'X':
      return "ISO offset of more than 3 letters";
    default:
      return "not a SimpleDateFormat letter";
  }
}

void append_padded(std::string& out, int64_t n, int width) {
  char digits[24];
  int len = 0;
  do {
    digits[len++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n > 0);
  for (int i = len; i < width; ++i)
    out.push_back('0');
  while (len > 0)
    out.push_back(digits[--len]);
}

struct parsed {
  int year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, millisecond = 0;
  int offset_minutes = 0;
};

void skip_blanks(std::string_view text, size_t& pos) {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t'))
    ++pos;
}

// Digits at pos: exactly `width` of them when width > 0, else as many as there are (1 to 9).
std::optional<int> read_number(std::string_view text, size_t& pos, int width, int& digits) {
  size_t end = pos;
  // Nine digits at most, whatever the pattern's width (SSSSSSSSSS): an int holds them.
  if (width > 9) return std::nullopt;
  const size_t limit = width > 0 ? pos + static_cast<size_t>(width) : pos + 9;
  while (end < text.size() && end < limit && is_digit(text[end]))
    ++end;
  digits = static_cast<int>(end - pos);
  if (digits == 0 || (width > 0 && digits != width)) return std::nullopt;
  int n = 0;
  for (size_t i = pos; i < end; ++i)
    n = n * 10 + (text[i] - '0');
  pos = end;
  return n;
}

// Z, +hh, +hhmm, +hh:mm (RFC 822 and ISO 8601 alike): minutes east of UTC.
std::optional<int> read_offset(std::string_view text, size_t& pos) {
  if (pos < text.size() && text[pos] == 'Z') {
    ++pos;
    return 0;
  }
  if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-')) return std::nullopt;
  const int sign = text[pos] == '-' ? -1 : 1;
  size_t at = pos + 1;
  int digits = 0;
  std::optional<int> hours = read_number(text, at, 2, digits);
  if (!hours || *hours > 23) return std::nullopt;
  int minutes = 0;
  size_t mark = at;
  if (at < text.size() && text[at] == ':') ++at;
  if (std::optional<int> m = read_number(text, at, 2, digits)) {
    if (*m > 59) return std::nullopt;
    minutes = *m;
  } else {
    at = mark;  // hours only
  }
  pos = at;
  return sign * (*hours * 60 + minutes);
}

}  // namespace

java_date_format::java_date_format(std::string_view pattern)
    : java_date_format(pattern,
                       year_month_day(floor<days>(system_clock::now())).year() - years(80)) {}

java_date_format::java_date_format(std::string_view pattern, year two_digit_start)
    : _pattern(pattern), _two_digit_start(static_cast<int>(two_digit_start)) {
  std::string unsupported;
  const auto refuse = [&](char letter, int count) {
    if (!unsupported.empty()) unsupported += ", ";
    unsupported += std::string(static_cast<size_t>(count), letter) + " (" +
                   std::string(unsupported_meaning(letter, count)) + ")";
  };
  const auto literal = [&](char c) {
    if (_tokens.empty() || _tokens.back().what != field::literal) _tokens.push_back({});
    _tokens.back().text.push_back(c);
  };
  for (size_t i = 0; i < pattern.size();) {
    const char c = pattern[i];
    if (c == '\'') {
      if (i + 1 < pattern.size() && pattern[i + 1] == '\'') {  // '' outside quotes: a quote
        literal('\'');
        i += 2;
        continue;
      }
      size_t j = i + 1;
      for (;; ++j) {
        if (j >= pattern.size()) {
          throw std::invalid_argument("format '" + _pattern + "': unterminated quote");
        }
        if (pattern[j] != '\'') {
          literal(pattern[j]);
        } else if (j + 1 < pattern.size() && pattern[j + 1] == '\'') {
          literal('\'');  // '' inside quotes: a quote
          ++j;
        } else {
          break;
        }
      }
      i = j + 1;
      continue;
    }
    if (!is_letter(c)) {
      literal(c);
      ++i;
      continue;
    }
    size_t j = i;
    while (j < pattern.size() && pattern[j] == c)
      ++j;
    const int count = static_cast<int>(j - i);
    i = j;
    field f = field::literal;
    switch (c) {
      case 'y':
        f = field::year;
        break;
      case 'M':
        if (count <= 2) f = field::month;
        break;
      case 'd':
        f = field::day;
        break;
      case 'H':
        f = field::hour;
        break;
      case 'm':
        f = field::minute;
        break;
      case 's':
        f = field::second;
        break;
      case 'S':
        f = field::millisecond;
        break;
      case 'Z':
        f = field::rfc822_offset;
        break;
      case 'X':
        if (count <= 3) f = field::iso_offset;
        break;
      default:
        break;
    }
    if (f == field::literal) {
      refuse(c, count);
      continue;
    }
    _tokens.push_back({f, count, {}});
  }
  if (!unsupported.empty()) {
    throw std::invalid_argument("format '" + _pattern + "': unsupported SimpleDateFormat syntax: " +
                                unsupported + "; supported: y M(M) d H m s S Z X 'literal'");
  }
}

bool java_date_format::format(instant t, std::string& out) const {
  const sys_days day = floor<days>(t);
  const year_month_day ymd(day);
  const int y = static_cast<int>(ymd.year());
  if (y < 1 || y > 9999) return false;
  const hh_mm_ss<microseconds> clock(t - day);
  for (const token& k : _tokens) {
    switch (k.what) {
      case field::literal:
        out += k.text;
        break;
      case field::year:
        if (k.count == 2) {
          append_padded(out, y % 100, 2);
        } else {
          append_padded(out, y, k.count);
        }
        break;
      case field::month:
        append_padded(out, static_cast<unsigned>(ymd.month()), k.count);
        break;
      case field::day:
        append_padded(out, static_cast<unsigned>(ymd.day()), k.count);
        break;
      case field::hour:
        append_padded(out, clock.hours().count(), k.count);
        break;
      case field::minute:
        append_padded(out, clock.minutes().count(), k.count);
        break;
      case field::second:
        append_padded(out, clock.seconds().count(), k.count);
        break;
      case field::millisecond:
        append_padded(out, duration_cast<milliseconds>(clock.subseconds()).count(), k.count);
        break;
      case field::rfc822_offset:
        out += "+0000";  // always UTC
        break;
      case field::iso_offset:
        out += 'Z';
        break;
    }
  }
  return true;
}

std::variant<java_date_format::instant, std::string> java_date_format::parse(
    std::string_view text) const {
  parsed p;
  size_t pos = 0;
  const auto numeric = [](field f) {
    return f == field::year || f == field::month || f == field::day || f == field::hour ||
           f == field::minute || f == field::second || f == field::millisecond;
  };
  for (size_t i = 0; i < _tokens.size(); ++i) {
    const token& k = _tokens[i];
    if (k.what == field::literal) {
      if (text.substr(pos, k.text.size()) != k.text) {
        return "expected '" + k.text + "' at position " + std::to_string(pos);
      }
      pos += k.text.size();
      continue;
    }
    if (k.what == field::rfc822_offset || k.what == field::iso_offset) {
      skip_blanks(text, pos);
      std::optional<int> offset = read_offset(text, pos);
      if (!offset) return "expected a UTC offset at position " + std::to_string(pos);
      p.offset_minutes = *offset;
      continue;
    }
    skip_blanks(text, pos);
    // Abutting numbers (yyyyMMdd) take as many digits as their letters.
    const bool abutting = i + 1 < _tokens.size() && numeric(_tokens[i + 1].what);
    int digits = 0;
    std::optional<int> n = read_number(text, pos, abutting ? k.count : 0, digits);
    if (!n) return "expected a number at position " + std::to_string(pos);
    switch (k.what) {
      case field::year:
        p.year = *n;
        if (k.count <= 2 && digits == 2) {  // the century within 80 years back, 20 ahead
          p.year = _two_digit_start / 100 * 100 + *n;
          if (p.year < _two_digit_start) p.year += 100;
        }
        break;
      case field::month:
        p.month = *n;
        break;
      case field::day:
        p.day = *n;
        break;
      case field::hour:
        p.hour = *n;
        break;
      case field::minute:
        p.minute = *n;
        break;
      case field::second:
        p.second = *n;
        break;
      default:
        p.millisecond = *n;
        break;
    }
  }
  const year_month_day ymd{year(p.year), month(static_cast<unsigned>(p.month)),
                           day(static_cast<unsigned>(p.day))};
  if (p.year < 1 || p.year > 9999 || !ymd.ok()) return std::string("no such date");
  if (p.hour > 23 || p.minute > 59 || p.second > 59 || p.millisecond > 999) {
    return std::string("no such time of day");
  }
  return instant(sys_days(ymd)) + hours(p.hour) + minutes(p.minute) + seconds(p.second) +
         milliseconds(p.millisecond) - minutes(p.offset_minutes);
}

}  // namespace sluice
