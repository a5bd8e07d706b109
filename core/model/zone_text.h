#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace sluice {

// What a time zone's text (a topic's `source.timezone`, SPEC §3) names, decided in one place
// for the configuration check (connector/config/config_checks.cc) and the decoders' parser
// (schemas/common/source_zone.cc), so that a value the check lets through is one the parser
// reads, and the reverse. Only the names' lookup in the IANA database is left to each.
struct zone_text {
  enum class kind {
    utc,      // "UTC", "utc", "Z", "GMT", "Etc/UTC"
    offset,   // ±HH, ±HHMM or ±HH:MM, at most 18:00 away from UTC: seconds_east
    name,     // any other text not starting with a sign: an IANA zone name to look up
    invalid,  // empty, or a sign and not such an offset
  };
  kind what = kind::invalid;
  int32_t seconds_east = 0;  // for an offset
};

// The furthest a zone offset is from UTC: ±18:00, as ISO 8601 and java.time allow.
constexpr int32_t max_zone_offset_seconds = 18 * 3600;

zone_text classify_zone_text(std::string_view text);

// "±HH:MM", "±HHMM" or "±HH" (hours below 24) as seconds east of UTC; nothing else. The
// offsets inside timestamps; a zone's offset is bounded further (classify_zone_text).
std::optional<int32_t> parse_offset_text(std::string_view text);

}  // namespace sluice
