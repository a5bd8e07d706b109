#include "connector/apply/topic_message_limit.h"

#include <charconv>
#include <cstring>

#include "connector/source/kafka_handles.h"

namespace sluice {

std::optional<int64_t> topic_max_message_bytes(rd_kafka_t* rk, const std::string& topic,
                                               std::chrono::milliseconds wait, std::string& why) {
  char err[512];
  kafka_admin_options options(rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS));
  if (rd_kafka_AdminOptions_set_request_timeout(options.get(), static_cast<int>(wait.count()), err,
                                                sizeof err)) {
    why = err;
    return std::nullopt;
  }
  kafka_config_resource resource(
      rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str()));
  kafka_queue queue(rd_kafka_queue_new(rk));
  rd_kafka_ConfigResource_t* resources[] = {resource.get()};
  rd_kafka_DescribeConfigs(rk, resources, 1, options.get(), queue.get());
  // The request times out on its own after `wait`; a little more here, so its answer (or
  // its timeout) is the one read.
  kafka_event event(rd_kafka_queue_poll(queue.get(), static_cast<int>(wait.count()) + 1000));
  if (!event) {
    why = "no answer to DescribeConfigs";
    return std::nullopt;
  }
  if (rd_kafka_event_error(event.get())) {
    why = rd_kafka_event_error_string(event.get());
    return std::nullopt;
  }
  const rd_kafka_DescribeConfigs_result_t* result =
      rd_kafka_event_DescribeConfigs_result(event.get());
  size_t resource_count = 0;
  const rd_kafka_ConfigResource_t** described =
      result ? rd_kafka_DescribeConfigs_result_resources(result, &resource_count) : nullptr;
  if (resource_count != 1) {
    why = "DescribeConfigs answered no topic";
    return std::nullopt;
  }
  if (rd_kafka_ConfigResource_error(described[0])) {
    const char* what = rd_kafka_ConfigResource_error_string(described[0]);
    why = what ? what : rd_kafka_err2str(rd_kafka_ConfigResource_error(described[0]));
    return std::nullopt;
  }
  size_t entry_count = 0;
  const rd_kafka_ConfigEntry_t** entries =
      rd_kafka_ConfigResource_configs(described[0], &entry_count);
  for (size_t i = 0; i < entry_count; ++i) {
    if (std::strcmp(rd_kafka_ConfigEntry_name(entries[i]), "max.message.bytes") != 0) continue;
    const char* value = rd_kafka_ConfigEntry_value(entries[i]);
    int64_t bytes = 0;
    if (value) {
      const char* end = value + std::strlen(value);
      if (std::from_chars(value, end, bytes).ptr == end && bytes > 0) return bytes;
    }
    why = std::string("max.message.bytes is '") + (value ? value : "") + "'";
    return std::nullopt;
  }
  why = "DescribeConfigs answered no max.message.bytes";
  return std::nullopt;
}

}  // namespace sluice
