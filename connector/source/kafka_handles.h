#pragma once

#include <librdkafka/rdkafka.h>

#include <memory>

namespace sluice {

// RAII for librdkafka handles (STYLE.md #7, after modern-cpp-kafka's RdKafkaHelper.h).
struct kafka_deleter {
  void operator()(rd_kafka_t* p) const { rd_kafka_destroy(p); }
  void operator()(rd_kafka_conf_t* p) const { rd_kafka_conf_destroy(p); }
  void operator()(rd_kafka_message_t* p) const { rd_kafka_message_destroy(p); }
  void operator()(rd_kafka_topic_partition_list_t* p) const {
    rd_kafka_topic_partition_list_destroy(p);
  }
  void operator()(rd_kafka_queue_t* p) const { rd_kafka_queue_destroy(p); }
  void operator()(rd_kafka_headers_t* p) const { rd_kafka_headers_destroy(p); }
  void operator()(rd_kafka_event_t* p) const { rd_kafka_event_destroy(p); }
  void operator()(rd_kafka_AdminOptions_t* p) const { rd_kafka_AdminOptions_destroy(p); }
  void operator()(rd_kafka_ConfigResource_t* p) const { rd_kafka_ConfigResource_destroy(p); }
};

using kafka_handle = std::unique_ptr<rd_kafka_t, kafka_deleter>;
using kafka_conf = std::unique_ptr<rd_kafka_conf_t, kafka_deleter>;
using kafka_message = std::unique_ptr<rd_kafka_message_t, kafka_deleter>;
using kafka_partition_list = std::unique_ptr<rd_kafka_topic_partition_list_t, kafka_deleter>;
using kafka_queue = std::unique_ptr<rd_kafka_queue_t, kafka_deleter>;
using kafka_headers = std::unique_ptr<rd_kafka_headers_t, kafka_deleter>;
using kafka_event = std::unique_ptr<rd_kafka_event_t, kafka_deleter>;
using kafka_admin_options = std::unique_ptr<rd_kafka_AdminOptions_t, kafka_deleter>;
using kafka_config_resource = std::unique_ptr<rd_kafka_ConfigResource_t, kafka_deleter>;

}  // namespace sluice
