#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace sluice {

// A POSIX TZ rule, the last line of a version 2+ tzdata file ("CET-1CEST,M3.5.0,M10.5.0/3"):
// a zone's offsets for the years after its last listed transition. source_zone uses it because
// libdate-tz 3.0.1 reads only the listed transitions, which end in 2037.
//
// This header and its .cc stay C++17: date/ptz.h 3.0.1 does not compile as C++20 (its
// `using namespace date; using namespace std::chrono;` makes hh_mm_ss ambiguous), so
// posix_zone_rule.cc alone is built with -std=c++17 (schemas/CMakeLists.txt).
//
// Lifecycle: parsed once per zone, immutable. Threading: const methods are thread-safe.
class posix_zone_rule {
 public:
  virtual ~posix_zone_rule() = default;

  // Seconds east of UTC at a local time (seconds since 1970-01-01T00:00 local). Ambiguous and
  // skipped local times get the smaller of the two offsets (source_zone.h).
  virtual int32_t offset_at_local(int64_t local_seconds) const = 0;

  // Null when the rule cannot be read.
  static std::unique_ptr<const posix_zone_rule> parse(const std::string& rule);
};

}  // namespace sluice
