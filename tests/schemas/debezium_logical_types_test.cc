#include "schemas/debezium/connect_logical_types.h"

#include <doctest/doctest.h>

#include <string>

namespace sluice {
namespace {

std::string bytes_of(std::string_view base64) {
  std::string out;
  REQUIRE(decode_base64(base64, out));
  return out;
}

std::string decimal(std::string_view base64, int32_t scale) {
  auto text = decimal_text(bytes_of(base64), scale);
  REQUIRE(text.has_value());
  return *text;
}

}  // namespace

TEST_CASE("a Connect Decimal is exact decimal text, whatever its size and sign") {
  CHECK(decimal("C7c=", 2) == "29.99");
  CHECK(decimal("dSY=", 3) == "29.990");  // the scale's digits are kept
  CHECK(decimal("9Ek=", 2) == "-29.99");
  CHECK(decimal("/w==", 1) == "-0.1");
  CHECK(decimal("gA==", 0) == "-128");
  CHECK(decimal("fw==", 0) == "127");
  CHECK(decimal("AIA=", 0) == "128");
  CHECK(decimal("BQ==", 4) == "0.0005");
  CHECK(decimal("AA==", 2) == "0.00");
  CHECK(decimal("", 0) == "0");
  CHECK(decimal("BQ==", -2) == "500");
  CHECK(decimal("AQAAAAAAAAAB", 0) == "18446744073709551617");  // 2^64 + 1
  CHECK(decimal("/v/////////7", 0) == "-18446744073709551621");
  CHECK(decimal("CUmw9vACMxPESZBQ3jjzTg==", 10) == "1234567890123456789012345678.9012345678");
}

TEST_CASE("a Decimal of up to 8 bytes (one 64-bit integer) reads as the long way does") {
  using namespace std::string_literals;
  CHECK(decimal_text("\x7f\xff\xff\xff\xff\xff\xff\xff"s, 0) == "9223372036854775807");
  CHECK(decimal_text("\x80\0\0\0\0\0\0\0"s, 0) == "-9223372036854775808");
  CHECK(decimal_text("\x80\0\0\0\0\0\0\0"s, 19) == "-0.9223372036854775808");
  CHECK(decimal_text("\xff\xff\xff\xff\xff\xff\xff\xff"s, 3) == "-0.001");
  // A sign byte in front does not change the value, and 9 bytes take the long way: every
  // value of 1 to 8 bytes must read the same both ways.
  uint64_t state = 88172645463325252ULL;
  for (int i = 0; i < 20000; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const size_t size = 1 + state % 8;
    std::string bytes;
    for (size_t b = 0; b < size; ++b)
      bytes.push_back(static_cast<char>(state >> (8 * b)));
    const char sign = (static_cast<uint8_t>(bytes[0]) & 0x80) ? '\xff' : '\0';
    const std::string padded = std::string(9 - size, sign) + bytes;
    const int32_t scale = static_cast<int32_t>(state >> 56) % 24 - 4;
    INFO("bytes ", size, " scale ", scale);
    REQUIRE(decimal_text(bytes, scale) == decimal_text(padded, scale));
  }
}

TEST_CASE("a Decimal beyond the bounds is refused rather than expanded") {
  CHECK_FALSE(decimal_text(std::string(max_decimal_bytes + 1, '\x7f'), 0).has_value());
  CHECK_FALSE(decimal_text("\x01", max_decimal_scale + 1).has_value());
  CHECK(decimal_text(std::string(max_decimal_bytes, '\x7f'), 0).has_value());
}

TEST_CASE("dates are days since the epoch") {
  CHECK(date_text(0) == "1970-01-01");
  CHECK(date_text(19737) == "2024-01-15");
  CHECK(date_text(-1) == "1969-12-31");
  CHECK(date_text(-719162) == "0001-01-01");
  CHECK(date_text(-719163) == "0001-12-31 BC");
  CHECK(date_text(2932896) == "9999-12-31");
  CHECK(date_text(2932897) == "10000-01-01");
}

TEST_CASE("timestamps are ISO text without a zone, to their unit's precision") {
  CHECK(timestamp_text(1705318200123456, 1'000'000) == "2024-01-15T11:30:00.123456");
  CHECK(timestamp_text(1705318200000000, 1'000'000) == "2024-01-15T11:30:00");
  CHECK(timestamp_text(1705318200120000, 1'000'000) == "2024-01-15T11:30:00.12");
  CHECK(timestamp_text(1705318200000010, 1'000'000) == "2024-01-15T11:30:00.00001");
  CHECK(timestamp_text(1705318200000001000, 1'000'000'000) == "2024-01-15T11:30:00.000001");
  CHECK(timestamp_text(1705318200123, 1'000) == "2024-01-15T11:30:00.123");
  CHECK(timestamp_text(1705318200123456789, 1'000'000'000) == "2024-01-15T11:30:00.123456789");
  CHECK(timestamp_text(-1, 1'000) == "1969-12-31T23:59:59.999");
  CHECK(timestamp_text(0, 1'000) == "1970-01-01T00:00:00");
  // Debezium's PostgreSQL 'infinity' sentinel is far away but still a date.
  CHECK(timestamp_text(INT64_MAX, 1'000'000).starts_with("294247-01-10T04:00:54.775807"));
  // And its lowest: the second is floored past INT64_MIN / 1000, the fraction still exact
  // (INT64_MIN = ...775808 ms: .192 of the second before), no overflow on the way.
  CHECK(timestamp_text(INT64_MIN, 1'000).ends_with(".192 BC"));
  CHECK(timestamp_text(INT64_MIN, 1'000'000).ends_with(".224192 BC"));
}

TEST_CASE("times of day count from midnight and may be PostgreSQL's 24:00:00") {
  CHECK(time_text(41'400'123'456, 1'000'000) == "11:30:00.123456");
  CHECK(time_text(41'400'000, 1'000) == "11:30:00");
  CHECK(time_text(86'400'000'000, 1'000'000) == "24:00:00");
  CHECK_FALSE(time_text(86'400'000'001, 1'000'000).has_value());
  CHECK_FALSE(time_text(-1, 1'000).has_value());
}

}  // namespace sluice

namespace sluice {

TEST_CASE("Bits: little-endian bytes become the bit string, most significant bit first") {
  std::string out;
  CHECK(bits_text("\x0a", 4, out));
  CHECK(out == "1010");
  CHECK(bits_text("", 4, out));  // trailing zero bytes dropped: all of them here
  CHECK(out == "0000");
  CHECK(bits_text("\xaa\xaa", 16, out));
  CHECK(out == "1010101010101010");
  CHECK(bits_text("\x01\x01", 12, out));  // the second byte holds bits 8..15
  CHECK(out == "000100000001");
  CHECK(bits_text("\x06", std::nullopt, out));  // varbit: from the highest set bit
  CHECK(out == "110");
  CHECK(bits_text("\x00\x00", std::nullopt, out));
  CHECK(out.empty());
}

TEST_CASE("Bits: a set bit beyond the length or a huge length is refused") {
  std::string out;
  CHECK_FALSE(bits_text("\x10", 4, out));
  CHECK_FALSE(bits_text("", max_bits_length + 1, out));
  CHECK_FALSE(bits_text("", -1, out));
  CHECK(bits_text("\x10", 5, out));
  CHECK(out == "10000");
}

TEST_CASE("MicroDuration: days and a time of day, negative parts signed, any int64") {
  CHECK(interval_text(93'784'500'000) == "1 days 02:03:04.5");
  CHECK(interval_text(-36'572'706'789'000) == "-423 days -07:05:06.789");
  CHECK(interval_text(0) == "00:00:00");
  CHECK(interval_text(-1) == "-00:00:00.000001");
  CHECK(interval_text(86'400'000'000) == "1 days 00:00:00");
  CHECK(interval_text(INT64_MAX) == "106751991 days 04:00:54.775807");
  CHECK(interval_text(INT64_MIN) == "-106751991 days -04:00:54.775808");
}

}  // namespace sluice
