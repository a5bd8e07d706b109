#include "core/model/value.h"

#include <algorithm>
#include <charconv>

namespace sluice {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// A decimal number's text, read but not rewritten: its digits before and after the point
// (views into the text) and its exponent.
struct number_text {
  bool negative = false;
  std::string_view whole;
  std::string_view fraction;
  int64_t exponent = 0;
};

std::optional<number_text> read_number(std::string_view t) {
  number_text n;
  size_t i = 0;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) n.negative = t[i++] == '-';
  size_t start = i;
  while (i < t.size() && is_digit(t[i]))
    ++i;
  n.whole = t.substr(start, i - start);
  if (i < t.size() && t[i] == '.') {
    start = ++i;
    while (i < t.size() && is_digit(t[i]))
      ++i;
    n.fraction = t.substr(start, i - start);
  }
  if (n.whole.empty() && n.fraction.empty()) return std::nullopt;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    int64_t exp = 0;
    bool exp_negative = false;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) exp_negative = t[i++] == '-';
    const size_t exp_start = i;
    while (i < t.size() && is_digit(t[i])) {
      if (exp > 1'000'000) return std::nullopt;
      exp = exp * 10 + (t[i++] - '0');
    }
    if (i == exp_start) return std::nullopt;
    n.exponent = exp_negative ? -exp : exp;
  }
  if (i != t.size()) return std::nullopt;
  return n;
}

}  // namespace

std::optional<size_t> canonical_integer_digits(std::string_view text, size_t max_digits) {
  const auto n = read_number(text);
  if (!n) return std::nullopt;
  // The digits as canonical_number joins them, whole then fraction, without joining them.
  const size_t total = n->whole.size() + n->fraction.size();
  const auto at = [&](size_t k) {
    return k < n->whole.size() ? n->whole[k] : n->fraction[k - n->whole.size()];
  };
  size_t lead = 0;
  while (lead < total && at(lead) == '0')
    ++lead;
  if (lead == total) return 0;  // "0"
  size_t trailing = 0;          // fewer than total - lead: a digit is not '0'
  while (at(total - 1 - trailing) == '0')
    ++trailing;
  const int64_t point =
      static_cast<int64_t>(n->whole.size()) + n->exponent - static_cast<int64_t>(lead);
  const int64_t significant = static_cast<int64_t>(total - lead);
  // canonical_number's length once it drops the fraction's trailing zeros.
  const int64_t len = point >= significant
                          ? significant
                          : std::max<int64_t>(significant - static_cast<int64_t>(trailing), point);
  const int64_t width = std::max<int64_t>(len, point) - std::min<int64_t>(0, point);
  if (width > static_cast<int64_t>(max_digits)) return std::nullopt;
  return point > 0 ? static_cast<size_t>(point) : 0;
}

std::optional<std::string> canonical_number(std::string_view t, size_t max_digits) {
  const auto n = read_number(t);
  if (!n) return std::nullopt;
  const bool negative = n->negative;
  std::string digits;  // all significant digits, integer then fraction
  digits.reserve(n->whole.size() + n->fraction.size());
  digits.append(n->whole);
  digits.append(n->fraction);
  // position of the decimal point within digits
  int64_t point = static_cast<int64_t>(n->whole.size()) + n->exponent;

  // Strip leading zeros (moving the point) and trailing zeros (fraction only after scaling).
  size_t lead = 0;
  while (lead < digits.size() && digits[lead] == '0')
    ++lead;
  if (lead == digits.size()) return std::string("0");
  digits.erase(0, lead);
  point -= static_cast<int64_t>(lead);
  while (!digits.empty() && digits.back() == '0' && static_cast<int64_t>(digits.size()) > point) {
    digits.pop_back();
  }
  const int64_t len = static_cast<int64_t>(digits.size());
  const int64_t width = std::max<int64_t>(len, point) - std::min<int64_t>(0, point);
  if (width > static_cast<int64_t>(max_digits)) return std::nullopt;

  std::string out;
  if (negative) out.push_back('-');
  if (point <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-point), '0');
    out += digits;
  } else if (point >= len) {
    out += digits;
    out.append(static_cast<size_t>(point - len), '0');
  } else {
    out.append(digits, 0, static_cast<size_t>(point));
    out.push_back('.');
    out.append(digits, static_cast<size_t>(point), std::string::npos);
  }
  return out;
}

}  // namespace sluice
