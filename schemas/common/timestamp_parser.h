#pragma once

#include <cstdint>
#include <string_view>

#include "core/model/named_type.h"
#include "core/model/result.h"

namespace sluice {

// A fixed offset from UTC (seconds east): the zone of timestamps written without one
// (a topic's `source.timezone`, SPEC §3).
struct utc_offset {
  int32_t seconds = 0;
  friend bool operator==(const utc_offset&, const utc_offset&) = default;
};

// "UTC", "Z", "+HH:MM", "-HH:MM", "+HHMM" or "+HH". IANA names ("Europe/Paris") are refused
// with an error saying so: g++ 12's libstdc++ has no time zone database.
result<utc_offset> parse_utc_offset(std::string_view text);

// ISO-8601 / RFC 3339: "YYYY-MM-DD", optionally followed by "T" (or a space) and
// "HH:MM[:SS[.fraction]]", optionally followed by "Z", "±HH:MM", "±HHMM", "±HH" or " UTC".
// Without a zone the time is read in `zone`. Fractions past nanoseconds are truncated.
result<timestamp_ns> parse_iso_timestamp(std::string_view text, utc_offset zone = {});

// Milliseconds since the Unix epoch as decimal text: "1573092939123", "-5", "1573092939123.5"
// (fractions down to the nanosecond).
result<timestamp_ns> parse_epoch_millis(std::string_view text);

// Either form: text that is a plain decimal number is epoch milliseconds, anything else is
// ISO-8601.
result<timestamp_ns> parse_timestamp(std::string_view text, utc_offset zone = {});

}  // namespace sluice
