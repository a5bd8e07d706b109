#include "sinks/plan/stream_clock.h"

#include <doctest/doctest.h>

namespace sluice {
namespace {

constexpr int64_t minute_ns = 60'000'000'000;
constexpr int64_t wall_ns = 1'764'633'600'000'000'000;  // 2025-12-02T00:00:00Z

}  // namespace

TEST_CASE("the stream clock follows the newest Kafka timestamp and never goes back") {
  stream_clock clock(std::chrono::minutes(1), [] { return timestamp_ns{wall_ns}; });
  CHECK(clock.now() == timestamp_ns{0});
  clock.observe(timestamp_ns{wall_ns - 60 * minute_ns});  // a catch-up: behind wall time
  CHECK(clock.now() == timestamp_ns{wall_ns - 60 * minute_ns});
  clock.observe(timestamp_ns{wall_ns - 90 * minute_ns});
  CHECK(clock.now() == timestamp_ns{wall_ns - 60 * minute_ns});
  clock.observe(timestamp_ns{wall_ns + 30'000'000'000});  // skew within a minute
  CHECK(clock.now() == timestamp_ns{wall_ns + 30'000'000'000});
}

TEST_CASE(
    "one far-future Kafka timestamp moves the stream clock no further than wall time "
    "plus the lead") {
  int64_t wall = wall_ns;
  stream_clock clock(std::chrono::minutes(1), [&] { return timestamp_ns{wall}; });
  clock.observe(timestamp_ns{wall_ns - 5 * minute_ns});
  clock.observe(timestamp_ns{wall_ns + 365 * 24 * 60 * minute_ns});
  CHECK(clock.now() == timestamp_ns{wall_ns + minute_ns});
  // Later the outlier is forgotten: the clock moves on with real messages only.
  wall += 10 * minute_ns;
  clock.observe(timestamp_ns{wall_ns + 2 * minute_ns});
  CHECK(clock.now() == timestamp_ns{wall_ns + 2 * minute_ns});
}

}  // namespace sluice
