#include "core/model/kafka_timestamp.h"

#include <doctest/doctest.h>

#include <limits>

namespace sluice {
namespace {

constexpr int64_t now_ms = 1'764'633'600'000;  // 2025-12-02T00:00:00Z
constexpr timestamp_ns now{now_ms * 1'000'000};
constexpr int64_t day_ms = 86'400'000;

}  // namespace

TEST_CASE("a Kafka timestamp in range becomes nanoseconds since the epoch") {
  CHECK(kafka_timestamp_ns(now_ms, now).value() == timestamp_ns{now_ms * 1'000'000});
  CHECK(kafka_timestamp_ns(1, now).value() == timestamp_ns{1'000'000});
  // Clock skew of a producer up to a day ahead is kept.
  CHECK(kafka_timestamp_ns(now_ms + day_ms, now).value() ==
        timestamp_ns{(now_ms + day_ms) * 1'000'000});
}

TEST_CASE("a message without a Kafka timestamp has timestamp 0") {
  CHECK(kafka_timestamp_ns(-1, now).value() == timestamp_ns{0});
  CHECK(kafka_timestamp_ns(0, now).value() == timestamp_ns{0});
}

TEST_CASE("an absurd Kafka timestamp is an error, never an overflowed product") {
  for (const int64_t ms :
       {now_ms + day_ms + 1, std::numeric_limits<int64_t>::max() / 2,
        std::numeric_limits<int64_t>::max(), int64_t{-2}, std::numeric_limits<int64_t>::min()}) {
    CAPTURE(ms);
    const auto t = kafka_timestamp_ns(ms, now);
    REQUIRE_FALSE(t.ok());
    CHECK(t.err().code == error_code::bad_timestamp);
    CHECK(t.err().message.find(std::to_string(ms)) != std::string::npos);
  }
}

TEST_CASE("without a clock only what nanoseconds since 1970 can hold bounds a Kafka timestamp") {
  constexpr int64_t last_ms = std::numeric_limits<int64_t>::max() / 1'000'000;
  CHECK(kafka_timestamp_ns(last_ms, timestamp_ns{0}).value() == timestamp_ns{last_ms * 1'000'000});
  const auto past = kafka_timestamp_ns(last_ms + 1, timestamp_ns{0});
  REQUIRE_FALSE(past.ok());
  CHECK(past.err().message.find("2262") != std::string::npos);
}

}  // namespace sluice
