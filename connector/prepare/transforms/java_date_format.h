#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sluice {

// A java.text.SimpleDateFormat pattern (what Connect's TimestampConverter `format` holds),
// translated once into tokens that format and parse instants in UTC, as TimestampConverter
// sets its format's zone. The numeric subset is supported:
//
//   y yy yyyy   year (yy: two digits; parsing two digits picks the century that puts the
//               year within 80 years before and 20 after construction, as Java does)
//   M MM        month number        d dd   day of month
//   H HH        hour 0-23           m mm   minute          s ss   second
//   S…          milliseconds, zero-padded to the letters' count (Java's S counts
//               milliseconds: "SSSSSS" writes 123 ms as 000123, not a fraction)
//   Z           RFC 822 offset (+0000)  X XX XXX  ISO 8601 offset (Z, +01, +0100, +01:00)
//   'text'      a literal ('' a quote), any other non-letter a literal
//
// Any other pattern letter (month and day names, am/pm and 12-hour clocks, era, week-based
// fields, day of year, zone names…) is refused at construction, listing what is not supported.
//
// Parsing reads from the text's start and ignores what follows the pattern (as
// SimpleDateFormat.parse(String) does), skips blanks before a number, and takes a number's
// digits greedily unless another number follows without a separator (then exactly as many
// digits as letters). Unlike Java's lenient default it refuses impossible dates and times
// (2024-02-30, 25:00) rather than rolling them over.
//
// Lifecycle: built once per transform; immutable, so any thread may use it.
class java_date_format {
 public:
  using instant = std::chrono::sys_time<std::chrono::microseconds>;

  // Throws std::invalid_argument naming the unsupported or malformed syntax.
  explicit java_date_format(std::string_view pattern);
  // The same with the start of the two-digit years' century (Java: 80 years before now).
  java_date_format(std::string_view pattern, std::chrono::year two_digit_start);

  // Appends t formatted in UTC to out; false (out unchanged) when its year is outside
  // 1..9999.
  bool format(instant t, std::string& out) const;
  // The instant the text's start spells, or why it does not match the pattern.
  std::variant<instant, std::string> parse(std::string_view text) const;

  const std::string& pattern() const { return _pattern; }

 private:
  enum class field : uint8_t {
    literal,
    year,
    month,
    day,
    hour,
    minute,
    second,
    millisecond,
    rfc822_offset,  // Z
    iso_offset,     // X, XX, XXX
  };
  struct token {
    field what = field::literal;
    int count = 0;     // pattern letters
    std::string text;  // literal
  };

  std::string _pattern;
  std::vector<token> _tokens;
  int _two_digit_start;  // the first year a two-digit year may be
};

}  // namespace sluice
