#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/named_type.h"

namespace sluice {

// One Kafka message as the connector hands it to a decoder. Views point into the consumer's
// message buffers and never outlive the batch that holds them (STYLE.md #8).
struct raw_message {
  std::string_view topic;
  partition_id partition{0};
  kafka_offset offset{0};
  timestamp_ns timestamp{0};  // Kafka message timestamp
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;  // nullopt: a Kafka tombstone
  std::vector<std::pair<std::string_view, std::optional<std::string_view>>> headers;
};

}  // namespace sluice
