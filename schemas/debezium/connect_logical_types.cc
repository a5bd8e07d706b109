#include "schemas/debezium/connect_logical_types.h"

#include <charconv>
#include <vector>

namespace sluice {
namespace {

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// a mod b in [0, b) for b > 0, without the overflow of a - floor_div(a, b) * b near INT64_MIN.
int64_t floor_mod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return r < 0 ? r + b : r;
}

int digits_of(int64_t per_second) {
  int n = 0;
  for (; per_second > 1; per_second /= 10)
    ++n;
  return n;
}

// v in decimal, at least `width` digits (zeros in front). No snprintf: these run for every
// timestamp and decimal a decoder reads.
void append_padded(std::string& out, uint64_t v, int width) {
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  const int n = static_cast<int>(end - buf);
  if (n < width) out.append(static_cast<size_t>(width - n), '0');
  out.append(buf, end);
}

// ".fraction" with its significant digits only, or nothing when the fraction is zero.
void append_fraction(std::string& out, int64_t fraction, int64_t per_second) {
  if (fraction == 0) return;
  int width = digits_of(per_second);
  uint64_t f = static_cast<uint64_t>(fraction);
  for (; f % 10 == 0; f /= 10)
    --width;  // the zeros at the end go; the width still counts the zeros in front
  out.push_back('.');
  append_padded(out, f, width);
}

void append_two(std::string& out, int64_t v) {
  out.push_back(static_cast<char>('0' + v / 10));
  out.push_back(static_cast<char>('0' + v % 10));
}

// Appends "YYYY-MM-DD" and returns whether the year is before 1 (PostgreSQL writes BC).
// Howard Hinnant's civil_from_days, in 64 bits: any int64 count of days since the epoch.
bool append_date(std::string& out, int64_t days) {
  const int64_t z = days + 719468;
  const int64_t era = floor_div(z, 146097);
  const int64_t doe = z - era * 146097;                                       // [0, 146096]
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  const int64_t mp = (5 * doy + 2) / 153;                                     // [0, 11]
  const int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const int64_t month = mp < 10 ? mp + 3 : mp - 9;
  int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const bool bc = year <= 0;
  if (bc) year = 1 - year;  // astronomical year 0 is 1 BC
  append_padded(out, static_cast<uint64_t>(year), 4);
  out.push_back('-');
  append_two(out, month);
  out.push_back('-');
  append_two(out, day);
  return bc;
}

void append_clock(std::string& out, int64_t second_of_day) {
  append_two(out, second_of_day / 3600);
  out.push_back(':');
  append_two(out, second_of_day / 60 % 60);
  out.push_back(':');
  append_two(out, second_of_day % 60);
}

}  // namespace

namespace {

// digits (no sign) with the scale's point placed, zeros appended for a negative scale.
void append_scaled(std::string& out, std::string_view digits, int32_t scale) {
  if (scale <= 0) {
    out += digits;
    if (digits != "0") out.append(static_cast<size_t>(-scale), '0');
    return;
  }
  const size_t s = static_cast<size_t>(scale);
  if (digits.size() <= s) {
    out += "0.";
    out.append(s - digits.size(), '0');
    out += digits;
    return;
  }
  out.append(digits, 0, digits.size() - s);
  out.push_back('.');
  out.append(digits, digits.size() - s, s);
}

}  // namespace

bool append_decimal_text(std::string& out, std::string_view unscaled, int32_t scale) {
  if (unscaled.size() > max_decimal_bytes) return false;
  if (scale > max_decimal_scale || scale < -max_decimal_scale) return false;
  const bool negative = !unscaled.empty() && (static_cast<uint8_t>(unscaled[0]) & 0x80);

  // Up to 8 bytes (every numeric(18) and most columns): one 64-bit integer, no allocation.
  if (unscaled.size() <= 8) {
    uint64_t bits = negative ? ~uint64_t{0} : 0;  // sign-extended
    for (char c : unscaled)
      bits = bits << 8 | static_cast<uint8_t>(c);
    const uint64_t magnitude = negative ? ~bits + 1 : bits;  // -2^63 too, as unsigned
    char buf[24];
    const auto end = std::to_chars(buf, buf + sizeof buf, magnitude).ptr;
    if (negative) out.push_back('-');
    append_scaled(out, std::string_view(buf, static_cast<size_t>(end - buf)), scale);
    return true;
  }

  // The magnitude, big-endian: two's complement negated (invert, add one) when negative.
  std::vector<uint8_t> magnitude(unscaled.begin(), unscaled.end());
  if (negative) {
    for (uint8_t& b : magnitude)
      b = static_cast<uint8_t>(~b);
    for (size_t i = magnitude.size(); i-- > 0;) {
      if (++magnitude[i] != 0) break;
    }
  }
  // Base 10^9 limbs, least significant first: limbs = limbs * 256 + byte, byte by byte.
  constexpr uint64_t limb_base = 1'000'000'000;
  std::vector<uint32_t> limbs;
  limbs.reserve(magnitude.size() / 3 + 1);
  for (uint8_t byte : magnitude) {
    uint64_t carry = byte;
    for (uint32_t& limb : limbs) {
      const uint64_t x = uint64_t{limb} * 256 + carry;
      limb = static_cast<uint32_t>(x % limb_base);
      carry = x / limb_base;
    }
    while (carry) {
      limbs.push_back(static_cast<uint32_t>(carry % limb_base));
      carry /= limb_base;
    }
  }
  std::string digits;
  if (limbs.empty()) {
    digits = "0";
  } else {
    append_padded(digits, limbs.back(), 1);
    for (size_t i = limbs.size() - 1; i-- > 0;)
      append_padded(digits, limbs[i], 9);
  }
  // A magnitude that wrapped to zero cannot happen: -2^n negates to 2^n, which fits in the
  // unsigned bytes. "-0" cannot either: zero has no sign bit.
  if (negative) out.push_back('-');
  append_scaled(out, digits, scale);
  return true;
}

std::optional<std::string> decimal_text(std::string_view unscaled, int32_t scale) {
  std::string out;
  if (!append_decimal_text(out, unscaled, scale)) return std::nullopt;
  return out;
}

std::string date_text(int64_t days) {
  std::string out;
  if (append_date(out, days)) out += " BC";
  return out;
}

std::string timestamp_text(int64_t count, int64_t per_second) {
  std::string out;
  append_timestamp_text(out, count, per_second);
  return out;
}

void append_timestamp_text(std::string& out, int64_t count, int64_t per_second) {
  const int64_t seconds = floor_div(count, per_second);
  const int64_t fraction = floor_mod(count, per_second);
  const int64_t days = floor_div(seconds, 86400);
  const bool bc = append_date(out, days);
  out.push_back(bc ? ' ' : 'T');
  append_clock(out, floor_mod(seconds, 86400));
  append_fraction(out, fraction, per_second);
  if (bc) out += " BC";
}

std::optional<std::string> time_text(int64_t count, int64_t per_second) {
  if (count < 0 || count / per_second > 86400 ||
      (count / per_second == 86400 && count % per_second != 0)) {
    return std::nullopt;
  }
  std::string out;
  append_clock(out, count / per_second);
  append_fraction(out, count % per_second, per_second);
  return out;
}

bool bits_text(std::string_view little_endian, std::optional<int32_t> length, std::string& out) {
  const auto bit = [&](size_t i) {
    return (static_cast<uint8_t>(little_endian[i / 8]) >> (i % 8)) & 1;
  };
  size_t highest = 0;  // one past the highest set bit
  for (size_t i = little_endian.size() * 8; i-- > 0;) {
    if (bit(i)) {
      highest = i + 1;
      break;
    }
  }
  if (length && (*length < 0 || *length > max_bits_length)) return false;
  const size_t n = length ? static_cast<size_t>(*length) : highest;
  if (highest > n) return false;
  out.clear();
  out.reserve(n);
  for (size_t i = n; i-- > 0;) {
    out.push_back(i < highest && bit(i) ? '1' : '0');
  }
  return true;
}

std::string interval_text(int64_t micros) {
  constexpr uint64_t per_second = 1'000'000;
  constexpr uint64_t per_day = 86'400 * per_second;
  const bool negative = micros < 0;
  // The magnitude in unsigned arithmetic: INT64_MIN has no positive int64.
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(micros) : micros;
  const uint64_t days = magnitude / per_day;
  const uint64_t rest = magnitude % per_day;
  std::string out;
  if (days != 0) {
    if (negative) out.push_back('-');
    out += std::to_string(days);
    out += " days ";
  }
  if (negative) out.push_back('-');
  append_clock(out, static_cast<int64_t>(rest / per_second));
  append_fraction(out, static_cast<int64_t>(rest % per_second), static_cast<int64_t>(per_second));
  return out;
}

}  // namespace sluice
