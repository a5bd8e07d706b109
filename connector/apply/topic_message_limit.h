#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace sluice {

// The largest record batch `topic` takes: its max.message.bytes (its own setting, else the
// broker's default), asked with the admin API's DescribeConfigs on the client `rk`. Waits at
// most `wait`; nullopt, with `why` said, when the broker does not answer in time, refuses
// (no DescribeConfigs ACL, no such topic) or does not know the API (librdkafka's mock
// cluster). Threading: any thread; it uses a queue of its own.
std::optional<int64_t> topic_max_message_bytes(rd_kafka_t* rk, const std::string& topic,
                                               std::chrono::milliseconds wait, std::string& why);

}  // namespace sluice
