#pragma once

#include <string>
#include <utility>
#include <vector>

#include "connector/kafka/kafka_handles.h"
#include "core/model/batch_records.h"

namespace sluice {

// errors.deadletterqueue.topic.name (SPEC §4, as Kafka Connect does it): each dead letter is
// produced with its original key and value, and headers naming the reason and origin
// (__sluice.reason, __sluice.topic, __sluice.partition, __sluice.offset, plus the original
// headers). send() returns only when every message is acknowledged, so the batch that
// dead-lettered them commits after they are durable in Kafka.
// Threading: send() may be called from several lanes at once (librdkafka's producer is
// thread-safe; each call waits for its own deliveries).
class dead_letter_producer {
 public:
  dead_letter_producer(const std::vector<std::pair<std::string, std::string>>& kafka_properties,
                       std::string topic);
  // Throws std::runtime_error when a message cannot be delivered (the batch must not commit).
  void send(const std::vector<dead_letter>& letters);
  void send(const std::vector<const dead_letter*>& letters);

 private:
  std::string _topic;
  kafka_handle _producer;
};

}  // namespace sluice
