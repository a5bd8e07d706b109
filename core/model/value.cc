#include "core/model/value.h"

#include <charconv>

namespace sluice {

std::optional<std::string> canonical_number(std::string_view t, size_t max_digits) {
  size_t i = 0;
  bool negative = false;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) negative = t[i++] == '-';
  std::string digits;  // all significant digits, integer then fraction
  int64_t point = 0;   // position of the decimal point within digits
  bool any = false;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
    digits.push_back(t[i++]);
    any = true;
  }
  point = static_cast<int64_t>(digits.size());
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
      digits.push_back(t[i++]);
      any = true;
    }
  }
  if (!any) return std::nullopt;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    int64_t exp = 0;
    bool exp_negative = false;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) exp_negative = t[i++] == '-';
    const size_t exp_start = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
      if (exp > 1'000'000) return std::nullopt;
      exp = exp * 10 + (t[i++] - '0');
    }
    if (i == exp_start) return std::nullopt;
    point += exp_negative ? -exp : exp;
  }
  if (i != t.size()) return std::nullopt;

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
