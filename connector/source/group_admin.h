#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "connector/config/config.h"
#include "connector/source/kafka_handles.h"

namespace sluice {

using topic_partition_key = std::pair<std::string, int32_t>;

// What the commands a person runs (`offsets`, `status`) ask the brokers about topics and the
// connector's consumer group: partitions, watermarks, offsets for a time, the group's live
// members and its committed offsets. One producer handle with the configuration's kafka:
// properties (the consumer-group keys left out); every call is bounded by `timeout` and
// throws std::runtime_error with librdkafka's reason when the brokers do not answer.
//
// Lifecycle: one per command. Threading: one thread.
class group_admin {
 public:
  // Throws std::invalid_argument for a kafka: property librdkafka refuses.
  group_admin(const config& c, std::chrono::milliseconds timeout);

  // Partitions of each topic, in order; a topic the brokers do not know is missing.
  std::map<std::string, std::vector<int32_t>> partitions(const std::vector<std::string>& topics);
  // Every topic the brokers know whose name matches the ECMAScript regex.
  std::vector<std::string> topics_matching(const std::string& regex);

  struct watermarks {
    int64_t low = 0;
    int64_t high = 0;
  };
  watermarks query_watermarks(const std::string& topic, int32_t partition);

  // The offset of the first message of each partition whose timestamp is at or after
  // `timestamp_ms`; nothing for a partition where no message is that late.
  std::map<topic_partition_key, std::optional<int64_t>> offsets_for_time(
      const std::vector<topic_partition_key>& partitions, int64_t timestamp_ms);

  struct group_state {
    std::string state;  // Stable, Empty, Dead, PreparingRebalance, ...
    size_t members = 0;
  };
  group_state describe_group(const std::string& group);
  // The cluster's id (Connect's kafka_cluster_id); "" when the brokers do not say in time.
  std::string cluster_id();

  // The group's committed offsets of the partitions (nothing where it has none). Throws
  // std::runtime_error when Kafka cannot say, for the whole request or for one partition.
  std::map<topic_partition_key, std::optional<int64_t>> committed(
      const std::string& group, const std::vector<topic_partition_key>& partitions);
  // Sets the group's committed offsets; Kafka refuses while the group has live members.
  void alter_committed(const std::string& group,
                       const std::map<topic_partition_key, int64_t>& offsets);

 private:
  kafka_event await(rd_kafka_queue_t* queue, const char* what);

  kafka_handle _rk;
  std::chrono::milliseconds _timeout;
};

}  // namespace sluice
