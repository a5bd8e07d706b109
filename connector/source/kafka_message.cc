#include "connector/source/kafka_message.h"

namespace sluice {
namespace {

std::string_view view_of(const void* p, size_t n) {
  return p ? std::string_view(static_cast<const char*>(p), n) : std::string_view();
}

}  // namespace

topic_partition partition_of(const rd_kafka_message_t& m) {
  return {rd_kafka_topic_name(m.rkt), partition_id{m.partition}};
}

source_message to_source_message(const rd_kafka_message_t& m) {
  source_message s;
  raw_message& r = s.raw;
  r.topic = rd_kafka_topic_name(m.rkt);
  r.partition = partition_id{m.partition};
  r.offset = kafka_offset{m.offset};
  if (m.key) r.key = view_of(m.key, m.key_len);
  if (m.payload) r.value = view_of(m.payload, m.len);
  rd_kafka_headers_t* headers = nullptr;
  if (rd_kafka_message_headers(&m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR && headers) {
    const char* name;
    const void* value;
    size_t size;
    for (size_t i = 0;
         rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
         ++i) {
      r.headers.emplace_back(name, value ? std::optional(view_of(value, size)) : std::nullopt);
    }
  }
  rd_kafka_timestamp_type_t type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
  s.timestamp_ms = rd_kafka_message_timestamp(&m, &type);
  s.clock = type == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? timestamp_type::log_append_time
                                                       : timestamp_type::create_time;
  return s;
}

}  // namespace sluice
