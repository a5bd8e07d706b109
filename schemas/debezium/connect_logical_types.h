#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/model/base64.h"

namespace sluice {

// Kafka Connect and Debezium logical types turned into the text PostgreSQL reads back as the
// same SQL value (SPEC §3, Debezium). Pure functions; the output parameters let callers reuse
// their buffers.

// The largest Decimal the decoder expands (unscaled bytes): 4096 bytes is 9,865 digits, more
// than any real column holds, and keeps a hostile message's cost bounded.
inline constexpr size_t max_decimal_bytes = 4096;
// PostgreSQL's numeric scale limit.
inline constexpr int32_t max_decimal_scale = 16383;

// The exact decimal text of a big-endian two's-complement unscaled integer and a scale:
// ("\x0b\xb7", 2) -> "29.99", ("\xff", 1) -> "-0.1", ("", 0) -> "0". The scale's digits are
// kept ("29.990" stays "29.990"); a negative scale appends zeros. Nothing when the bytes
// exceed max_decimal_bytes or the scale exceeds max_decimal_scale.
std::optional<std::string> decimal_text(std::string_view unscaled, int32_t scale);
// The same, appended to out (false, out unchanged, in the cases above).
bool append_decimal_text(std::string& out, std::string_view unscaled, int32_t scale);

// Days since 1970-01-01 as "YYYY-MM-DD" (years before 1 as PostgreSQL's "YYYY-MM-DD BC").
std::string date_text(int64_t days);

// A count of 1/per_second seconds since the epoch as "YYYY-MM-DDTHH:MM:SS[.fraction]", no
// zone (Debezium's Timestamp, MicroTimestamp, NanoTimestamp: timestamps without time zone).
// The fraction keeps its significant digits only. per_second: 1000, 1000000 or 1000000000.
std::string timestamp_text(int64_t count, int64_t per_second);
void append_timestamp_text(std::string& out, int64_t count, int64_t per_second);

// A count of 1/per_second seconds since midnight as "HH:MM:SS[.fraction]" ("24:00:00" for
// PostgreSQL's end of day). Nothing when negative or past 24:00:00.
std::optional<std::string> time_text(int64_t count, int64_t per_second);

// The longest bit string the decoder writes: a bit(n) value is n characters, and n comes
// from the message whatever its payload, so it is bounded low enough that a message of
// thousands of such columns stays small (64 KiB of text each; real bit columns are far
// shorter; PostgreSQL's own limit is 83,886,080). A longer one is a dead letter.
inline constexpr int32_t max_bits_length = 1 << 16;

// io.debezium.data.Bits as PostgreSQL's bit-string text: Debezium sends the bit string's
// value as little-endian bytes with trailing zero bytes dropped, the first bit of the string
// being the value's most significant one (B'1010' -> "\x0a", B'110' -> "\x06"). With a
// length (bit(n): n), writes exactly that many bits ("\x0a", 4 -> "1010"; "", 4 -> "0000");
// without one (varbit, whose leading zeros Debezium does not keep), the bits from the
// highest set one ("\x06" -> "110", "" -> ""). False when a set bit lies beyond the length
// or the length exceeds max_bits_length.
bool bits_text(std::string_view little_endian, std::optional<int32_t> length, std::string& out);

// io.debezium.time.MicroDuration (a duration in microseconds, months counted as 30.4375
// days) as interval text PostgreSQL reads: "1 days 02:03:04.5", "-423 days -07:05:06.789",
// "00:00:00". Days and a time of day, each small enough for every PostgreSQL version.
std::string interval_text(int64_t micros);

}  // namespace sluice
