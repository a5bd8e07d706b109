#include "integration/connect/consumer_groups.h"

#include <librdkafka/rdkafka.h>

#include <memory>
#include <stdexcept>

#include "integration/support/services.h"

namespace sluice::testing {
namespace {

struct client_deleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using client = std::unique_ptr<rd_kafka_t, client_deleter>;

// A consumer handle that never subscribes: group.id only names the group OffsetFetch asks
// about.
client new_consumer(const std::string& group) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [key, value] :
       {std::pair<std::string, std::string>{"bootstrap.servers", kafka_bootstrap()},
        {"group.id", group},
        {"enable.auto.commit", "false"}}) {
    if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      throw std::runtime_error(key + ": " + err);
    }
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (!rk) throw std::runtime_error(std::string("rd_kafka_new: ") + err);
  return client(rk);
}

}  // namespace

int64_t committed_offset(const std::string& group, const std::string& topic, int32_t partition) {
  const client rk = new_consumer(group);
  rd_kafka_topic_partition_list_t* parts = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(parts, topic.c_str(), partition);
  const rd_kafka_resp_err_t err = rd_kafka_committed(rk.get(), parts, 30000);
  const int64_t offset = parts->elems[0].offset;
  const rd_kafka_resp_err_t part_err = parts->elems[0].err;
  rd_kafka_topic_partition_list_destroy(parts);
  if (err || part_err) {
    throw std::runtime_error("committed offsets of " + group + ": " +
                             rd_kafka_err2str(err ? err : part_err));
  }
  return offset < 0 ? -1 : offset;  // RD_KAFKA_OFFSET_INVALID: nothing committed
}

int group_members(const std::string& group) {
  const client rk = new_consumer(group + ".observer");
  const rd_kafka_group_list* list = nullptr;
  const rd_kafka_resp_err_t err = rd_kafka_list_groups(rk.get(), group.c_str(), &list, 30000);
  if (err) throw std::runtime_error("describe group " + group + ": " + rd_kafka_err2str(err));
  const int members = list->group_cnt > 0 ? list->groups[0].member_cnt : 0;
  rd_kafka_group_list_destroy(list);
  return members;
}

int64_t high_watermark(const std::string& topic, int32_t partition) {
  const client rk = new_consumer(topic + ".watermarks");
  int64_t low = 0, high = 0;
  const rd_kafka_resp_err_t err =
      rd_kafka_query_watermark_offsets(rk.get(), topic.c_str(), partition, &low, &high, 30000);
  if (err) throw std::runtime_error("watermarks of " + topic + ": " + rd_kafka_err2str(err));
  return high;
}

}  // namespace sluice::testing
