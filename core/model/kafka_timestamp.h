#pragma once

#include <chrono>
#include <cstdint>

#include "core/model/named_type.h"
#include "core/model/result.h"

namespace sluice {

// How far ahead of this machine's clock a Kafka timestamp may be. Kafka stamps a message
// with its producer's clock (CreateTime) or, on a topic with
// message.timestamp.type=LogAppendTime, with the broker's; either is at most a clock skew
// ahead of ours. A day is far beyond any skew worth keeping a message for, and far enough
// below the year 2262, where nanoseconds since the epoch stop fitting an int64.
inline constexpr std::chrono::hours kafka_timestamp_max_future{24};

// A Kafka message timestamp (milliseconds since the epoch, as librdkafka and kcat give it;
// -1 when the message has none) as nanoseconds since the epoch, range-checked so that the
// conversion never overflows:
//   -1 (none) or 0                      → timestamp_ns{0}: no timestamp
//   1 … now + kafka_timestamp_max_future → ms × 1'000'000
//   anything else (negative, or absurdly far in the future) → error_code::bad_timestamp
// Such a message cannot be given a sane time (librdkafka exposes no broker append time for a
// CreateTime message), so the caller dead-letters it. `now` is this machine's clock, read once
// per batch by the caller; 0 leaves only the representable range as the bound.
result<timestamp_ns> kafka_timestamp_ns(int64_t ms, timestamp_ns now);

// Whose clock stamped a message: its producer's (CreateTime, librdkafka's and kcat's default)
// or its broker's (LogAppendTime). An absurd timestamp's error names it.
enum class timestamp_type { create_time, log_append_time };

// kafka_timestamp_ns, its error saying whose clock it was.
result<timestamp_ns> kafka_timestamp_ns(int64_t ms, timestamp_type type, timestamp_ns now);

}  // namespace sluice
