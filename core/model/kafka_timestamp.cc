#include "core/model/kafka_timestamp.h"

#include <algorithm>
#include <limits>
#include <string>

namespace sluice {

result<timestamp_ns> kafka_timestamp_ns(int64_t ms, timestamp_ns now) {
  constexpr int64_t ns_per_ms = 1'000'000;
  constexpr int64_t representable_ms = std::numeric_limits<int64_t>::max() / ns_per_ms;
  constexpr int64_t max_future_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(kafka_timestamp_max_future).count();
  if (ms == -1 || ms == 0) return timestamp_ns{0};
  if (ms < 0) {
    return error{error_code::bad_timestamp,
                 "Kafka timestamp " + std::to_string(ms) + " ms is before 1970"};
  }
  // now is at most a few centuries past 1970: now_ms + a day cannot overflow.
  const int64_t bound_ms = now.value() > 0
                               ? std::min(representable_ms, now.value() / ns_per_ms + max_future_ms)
                               : representable_ms;
  if (ms > bound_ms) {
    const std::string why =
        bound_ms == representable_ms
            ? "is past what nanoseconds since 1970 can hold (year 2262)"
            : "is more than " + std::to_string(kafka_timestamp_max_future.count()) +
                  " h ahead of this machine's clock (at most " + std::to_string(bound_ms) + " ms)";
    return error{error_code::bad_timestamp, "Kafka timestamp " + std::to_string(ms) + " ms " + why};
  }
  return timestamp_ns{ms * ns_per_ms};
}

result<timestamp_ns> kafka_timestamp_ns(int64_t ms, timestamp_type type, timestamp_ns now) {
  result<timestamp_ns> t = kafka_timestamp_ns(ms, now);
  if (t) return t;
  error e = t.err();
  e.message += type == timestamp_type::log_append_time ? " (LogAppendTime, the broker's)"
                                                       : " (CreateTime, the producer's)";
  return e;
}

}  // namespace sluice
