#pragma once

#include <cstdint>
#include <string_view>

#include "core/model/named_type.h"
#include "core/model/result.h"
#include "schemas/common/source_zone.h"

namespace sluice {

// The former names of source_zone and parse_source_zone, kept while schemas/goldengate still
// spells them so (it is being changed on another branch); new code says source_zone.
using utc_offset = source_zone;
inline result<source_zone> parse_utc_offset(std::string_view text) {
  return parse_source_zone(text);
}

// ISO-8601 / RFC 3339: "YYYY-MM-DD", optionally followed by "T" (or a space) and
// "HH:MM[:SS[.fraction]]", optionally followed by "Z", "±HH:MM", "±HHMM", "±HH" or " UTC".
// Without a zone the time is read in `zone` (ambiguous and skipped local times: see
// source_zone). Fractions past nanoseconds are truncated.
result<timestamp_ns> parse_iso_timestamp(std::string_view text, const source_zone& zone = {});

// Milliseconds since the Unix epoch as decimal text: "1573092939123", "-5", "1573092939123.5"
// (fractions down to the nanosecond).
result<timestamp_ns> parse_epoch_millis(std::string_view text);

// Either form: text that is a plain decimal number is epoch milliseconds, anything else is
// ISO-8601.
result<timestamp_ns> parse_timestamp(std::string_view text, const source_zone& zone = {});

}  // namespace sluice
