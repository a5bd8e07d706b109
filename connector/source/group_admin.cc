#include "connector/source/group_admin.h"

#include <algorithm>
#include <stdexcept>

#include "connector/config/topic_regex.h"
#include "connector/source/kafka_log.h"

namespace sluice {
namespace {

std::string error_text(const rd_kafka_error_t* e) {
  return e ? rd_kafka_error_string(e) : "unknown error";
}

kafka_partition_list to_list(const std::vector<topic_partition_key>& partitions) {
  kafka_partition_list list(rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  for (const auto& [topic, partition] : partitions)
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition);
  return list;
}

kafka_admin_options admin_options(rd_kafka_t* rk, rd_kafka_admin_op_t op,
                                  std::chrono::milliseconds timeout) {
  char err[512];
  kafka_admin_options options(rd_kafka_AdminOptions_new(rk, op));
  if (rd_kafka_AdminOptions_set_request_timeout(options.get(), static_cast<int>(timeout.count()),
                                                err, sizeof err)) {
    throw std::runtime_error(err);
  }
  return options;
}

// The single group result of a ListConsumerGroupOffsets or AlterConsumerGroupOffsets answer.
const rd_kafka_topic_partition_list_t* group_partitions(const rd_kafka_group_result_t** groups,
                                                        size_t count, const char* what) {
  if (count != 1) throw std::runtime_error(std::string(what) + " answered no group");
  if (const rd_kafka_error_t* e = rd_kafka_group_result_error(groups[0])) {
    throw std::runtime_error(std::string(what) + ": " + error_text(e));
  }
  return rd_kafka_group_result_partitions(groups[0]);
}

}  // namespace

group_admin::group_admin(const config& c, std::chrono::milliseconds timeout) : _timeout(timeout) {
  char err[512];
  kafka_conf conf(rd_kafka_conf_new());
  for (const auto& [k, v] : c.kafka) {
    // Consumer-only keys on this producer handle would only be logged as ignored.
    if (k == "group.id" || k == "auto.offset.reset") continue;
    if (rd_kafka_conf_set(conf.get(), k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      throw std::invalid_argument("kafka." + k + ": " + err);
    }
  }
  route_kafka_logs(conf.get());
  _rk.reset(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), err, sizeof err));
  if (!_rk) throw std::invalid_argument(err);
  conf.release();
}

kafka_event group_admin::await(rd_kafka_queue_t* queue, const char* what) {
  // The request times out on its own after _timeout; a little more here, so that its answer
  // (or its timeout) is the one read.
  kafka_event event(rd_kafka_queue_poll(queue, static_cast<int>(_timeout.count()) + 1000));
  if (!event) throw std::runtime_error(std::string("no answer to ") + what);
  if (rd_kafka_event_error(event.get())) {
    throw std::runtime_error(std::string(what) + ": " + rd_kafka_event_error_string(event.get()));
  }
  return event;
}

std::map<std::string, std::vector<int32_t>> group_admin::partitions(
    const std::vector<std::string>& topics) {
  const rd_kafka_metadata_t* md = nullptr;
  const auto e = rd_kafka_metadata(_rk.get(), 1, nullptr, &md, static_cast<int>(_timeout.count()));
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw std::runtime_error(std::string("metadata: ") + rd_kafka_err2str(e));
  }
  std::map<std::string, std::vector<int32_t>> out;
  for (int i = 0; i < md->topic_cnt; ++i) {
    const rd_kafka_metadata_topic_t& t = md->topics[i];
    if (t.err != RD_KAFKA_RESP_ERR_NO_ERROR) continue;
    bool wanted = false;
    for (const std::string& topic : topics)
      wanted = wanted || topic == t.topic;
    if (!wanted) continue;
    std::vector<int32_t>& parts = out[t.topic];
    for (int p = 0; p < t.partition_cnt; ++p)
      parts.push_back(t.partitions[p].id);
    std::sort(parts.begin(), parts.end());
  }
  rd_kafka_metadata_destroy(md);
  return out;
}

std::vector<std::string> group_admin::topics_matching(const std::string& regex) {
  const rd_kafka_metadata_t* md = nullptr;
  const auto e = rd_kafka_metadata(_rk.get(), 1, nullptr, &md, static_cast<int>(_timeout.count()));
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw std::runtime_error(std::string("metadata: ") + rd_kafka_err2str(e));
  }
  const topic_regex re(regex);  // the loader checked it compiles
  std::vector<std::string> out;
  for (int i = 0; i < md->topic_cnt; ++i) {
    if (re.matches(md->topics[i].topic)) out.emplace_back(md->topics[i].topic);
  }
  rd_kafka_metadata_destroy(md);
  std::sort(out.begin(), out.end());
  return out;
}

group_admin::watermarks group_admin::query_watermarks(const std::string& topic, int32_t partition) {
  watermarks w;
  const auto e = rd_kafka_query_watermark_offsets(_rk.get(), topic.c_str(), partition, &w.low,
                                                  &w.high, static_cast<int>(_timeout.count()));
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw std::runtime_error("watermarks of " + topic + "[" + std::to_string(partition) +
                             "]: " + rd_kafka_err2str(e));
  }
  return w;
}

std::map<topic_partition_key, std::optional<int64_t>> group_admin::offsets_for_time(
    const std::vector<topic_partition_key>& partitions, int64_t timestamp_ms) {
  kafka_partition_list list = to_list(partitions);
  for (int i = 0; i < list->cnt; ++i)
    list->elems[i].offset = timestamp_ms;
  const auto e =
      rd_kafka_offsets_for_times(_rk.get(), list.get(), static_cast<int>(_timeout.count()));
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw std::runtime_error(std::string("offsets for times: ") + rd_kafka_err2str(e));
  }
  std::map<topic_partition_key, std::optional<int64_t>> out;
  for (int i = 0; i < list->cnt; ++i) {
    const rd_kafka_topic_partition_t& p = list->elems[i];
    if (p.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      throw std::runtime_error("offsets for times of " + std::string(p.topic) + "[" +
                               std::to_string(p.partition) + "]: " + rd_kafka_err2str(p.err));
    }
    // -1 (RD_KAFKA_OFFSET_END): no message that late.
    out[{p.topic, p.partition}] = p.offset >= 0 ? std::optional<int64_t>(p.offset) : std::nullopt;
  }
  return out;
}

std::string group_admin::cluster_id() {
  char* id = rd_kafka_clusterid(_rk.get(), static_cast<int>(_timeout.count()));
  if (id == nullptr) return "";
  std::string out(id);
  rd_kafka_mem_free(_rk.get(), id);
  return out;
}

group_admin::group_state group_admin::describe_group(const std::string& group) {
  kafka_queue queue(rd_kafka_queue_new(_rk.get()));
  const kafka_admin_options options =
      admin_options(_rk.get(), RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS, _timeout);
  const char* groups[] = {group.c_str()};
  rd_kafka_DescribeConsumerGroups(_rk.get(), groups, 1, options.get(), queue.get());
  const kafka_event event = await(queue.get(), "DescribeConsumerGroups");
  const rd_kafka_DescribeConsumerGroups_result_t* result =
      rd_kafka_event_DescribeConsumerGroups_result(event.get());
  size_t count = 0;
  const rd_kafka_ConsumerGroupDescription_t** described =
      result ? rd_kafka_DescribeConsumerGroups_result_groups(result, &count) : nullptr;
  if (count != 1) throw std::runtime_error("DescribeConsumerGroups answered no group");
  if (const rd_kafka_error_t* e = rd_kafka_ConsumerGroupDescription_error(described[0])) {
    throw std::runtime_error("DescribeConsumerGroups: " + error_text(e));
  }
  return {rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupDescription_state(described[0])),
          rd_kafka_ConsumerGroupDescription_member_count(described[0])};
}

std::map<topic_partition_key, std::optional<int64_t>> group_admin::committed(
    const std::string& group, const std::vector<topic_partition_key>& partitions) {
  kafka_queue queue(rd_kafka_queue_new(_rk.get()));
  const kafka_admin_options options =
      admin_options(_rk.get(), RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS, _timeout);
  const kafka_partition_list list = to_list(partitions);
  rd_kafka_ListConsumerGroupOffsets_t* request =
      rd_kafka_ListConsumerGroupOffsets_new(group.c_str(), list.get());
  rd_kafka_ListConsumerGroupOffsets(_rk.get(), &request, 1, options.get(), queue.get());
  rd_kafka_ListConsumerGroupOffsets_destroy(request);
  const kafka_event event = await(queue.get(), "ListConsumerGroupOffsets");
  const rd_kafka_ListConsumerGroupOffsets_result_t* result =
      rd_kafka_event_ListConsumerGroupOffsets_result(event.get());
  size_t count = 0;
  const rd_kafka_group_result_t** groups =
      result ? rd_kafka_ListConsumerGroupOffsets_result_groups(result, &count) : nullptr;
  const rd_kafka_topic_partition_list_t* parts =
      group_partitions(groups, count, "ListConsumerGroupOffsets");
  std::map<topic_partition_key, std::optional<int64_t>> out;
  for (int i = 0; parts && i < parts->cnt; ++i) {
    const rd_kafka_topic_partition_t& p = parts->elems[i];
    // A partition's error (its coordinator still loading, an offset commit in flight) is not
    // "nothing committed": a takeover would start it at auto.offset.reset instead.
    if (p.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      throw std::runtime_error("ListConsumerGroupOffsets: " + std::string(p.topic) + "[" +
                               std::to_string(p.partition) + "]: " + rd_kafka_err2str(p.err));
    }
    out[{p.topic, p.partition}] = p.offset >= 0 ? std::optional<int64_t>(p.offset) : std::nullopt;
  }
  return out;
}

void group_admin::alter_committed(const std::string& group,
                                  const std::map<topic_partition_key, int64_t>& offsets) {
  if (offsets.empty()) return;
  kafka_queue queue(rd_kafka_queue_new(_rk.get()));
  const kafka_admin_options options =
      admin_options(_rk.get(), RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS, _timeout);
  kafka_partition_list list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const auto& [tp, offset] : offsets)
    rd_kafka_topic_partition_list_add(list.get(), tp.first.c_str(), tp.second)->offset = offset;
  rd_kafka_AlterConsumerGroupOffsets_t* request =
      rd_kafka_AlterConsumerGroupOffsets_new(group.c_str(), list.get());
  rd_kafka_AlterConsumerGroupOffsets(_rk.get(), &request, 1, options.get(), queue.get());
  rd_kafka_AlterConsumerGroupOffsets_destroy(request);
  const kafka_event event = await(queue.get(), "AlterConsumerGroupOffsets");
  const rd_kafka_AlterConsumerGroupOffsets_result_t* result =
      rd_kafka_event_AlterConsumerGroupOffsets_result(event.get());
  size_t count = 0;
  const rd_kafka_group_result_t** groups =
      result ? rd_kafka_AlterConsumerGroupOffsets_result_groups(result, &count) : nullptr;
  const rd_kafka_topic_partition_list_t* parts =
      group_partitions(groups, count, "AlterConsumerGroupOffsets");
  for (int i = 0; parts && i < parts->cnt; ++i) {
    const rd_kafka_topic_partition_t& p = parts->elems[i];
    if (p.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      throw std::runtime_error("AlterConsumerGroupOffsets of " + std::string(p.topic) + "[" +
                               std::to_string(p.partition) + "]: " + rd_kafka_err2str(p.err));
    }
  }
}

}  // namespace sluice
