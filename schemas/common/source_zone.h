#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/model/result.h"
#include "core/model/zone_text.h"  // parse_offset_text, which timestamps use

namespace sluice {

// The zone of timestamps written without one: a topic's `source.timezone` (SPEC §3). UTC, a
// fixed offset from UTC, or an IANA zone of the system's time zone database (tzdata, read
// through Howard Hinnant's date/tz library; the zone's rules past the database's last listed
// transition come from the POSIX TZ rule the tzdata file ends with).
//
// A local time that a DST change makes ambiguous (fall-back: it occurs twice) or skipped
// (spring-forward: it never occurs) is read with the smaller of the two UTC offsets around
// that change, which is what PostgreSQL does for timestamptz input and `timestamp AT TIME
// ZONE`: Europe/Paris 2026-10-25 02:30 is 01:30Z (the later of its two instants, +01:00) and
// 2026-03-29 02:30 is 01:30Z (+01:00, i.e. 03:30+02:00).
//
// Lifecycle: parsed once per topic (parse_source_zone, at decoder construction), then copied
// freely; copies share the zone's read-only rules. Threading: const methods are safe from any
// thread.
class source_zone {
 public:
  source_zone() = default;  // UTC
  static source_zone fixed(int32_t seconds_east);

  // Seconds east of UTC in effect at a local wall-clock time, given as seconds since
  // 1970-01-01T00:00 local. Ambiguous and skipped local times: the rule above.
  int32_t offset_at_local(int64_t local_seconds) const {
    return _named ? named_offset_at_local(local_seconds) : _fixed_seconds;
  }

  bool is_fixed() const { return !_named; }
  // The offset of a fixed zone (0 for a named one).
  int32_t fixed_seconds() const { return _named ? 0 : _fixed_seconds; }
  // The IANA name of a named zone, "" for a fixed one.
  std::string_view name() const;

  // Same fixed offset, or same IANA zone.
  friend bool operator==(const source_zone& a, const source_zone& b) {
    return a._fixed_seconds == b._fixed_seconds && a.name() == b.name();
  }

  struct named_rules;  // source_zone.cc: the date/tz zone and its POSIX rule

 private:
  int32_t named_offset_at_local(int64_t local_seconds) const;

  int32_t _fixed_seconds = 0;
  std::shared_ptr<const named_rules> _named;  // null for UTC and fixed offsets

  friend result<source_zone> parse_source_zone(std::string_view text);
};

// What classify_zone_text (core/model/zone_text.h) reads as UTC ("UTC", "utc", "Z", "GMT",
// "Etc/UTC"), as an offset ("+HH:MM", "-HH:MM", "+HHMM" or "+HH", at most 18:00 from UTC)
// or as an IANA zone name ("Europe/Paris", case as in the database), looked up here. An
// unknown name is an error saying so. Reads the time zone database (a file per zone): call
// it once per topic, not per message.
result<source_zone> parse_source_zone(std::string_view text);

}  // namespace sluice
