#pragma once

#include <doctest/doctest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

// A one-broker librdkafka mock cluster (in process, no broker needed) with a one-partition
// topic holding `values` in order, with the CreateTime `timestamps` (ms) given, else now.
class mock_topic {
 public:
  // One message read back, with its headers (the last value of each name).
  struct message {
    std::optional<std::string> key, value;
    std::map<std::string, std::string> headers;
  };

  mock_topic(const std::string& topic, const std::vector<std::string>& values,
             const std::vector<int64_t>& timestamps = {})
      : _topic(topic) {
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "2", err, sizeof err);
    _host = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    REQUIRE(_host);
    _cluster = rd_kafka_mock_cluster_new(_host, 1);
    REQUIRE(_cluster);
    REQUIRE(rd_kafka_mock_topic_create(_cluster, topic.c_str(), 1, 1) == 0);

    conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps().c_str(), err, sizeof err);
    rd_kafka_t* producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    REQUIRE(producer);
    for (size_t i = 0; i < values.size(); ++i) {
      const std::string& v = values[i];
      const int64_t ts = i < timestamps.size() ? timestamps[i] : 0;  // 0: now
      REQUIRE(rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                RD_KAFKA_V_VALUE(const_cast<char*>(v.data()), v.size()),
                                RD_KAFKA_V_TIMESTAMP(ts), RD_KAFKA_V_END) == 0);
    }
    REQUIRE(rd_kafka_flush(producer, 10000) == 0);
    rd_kafka_destroy(producer);
  }
  ~mock_topic() {
    rd_kafka_mock_cluster_destroy(_cluster);
    rd_kafka_destroy(_host);
  }
  mock_topic(const mock_topic&) = delete;
  mock_topic& operator=(const mock_topic&) = delete;

  std::string bootstraps() const { return rd_kafka_mock_cluster_bootstraps(_cluster); }
  // The next Produce requests answer these errors, one request each.
  void fail_next_produces(const std::vector<rd_kafka_resp_err_t>& errors) {
    rd_kafka_mock_push_request_errors_array(_cluster, produce_api, errors.size(), errors.data());
  }
  // The next Produce request succeeds, its answer delayed by ms (and those behind it).
  void delay_next_produce(int ms) {
    rd_kafka_mock_broker_push_request_error_rtts(_cluster, 1, produce_api, 1,
                                                 RD_KAFKA_RESP_ERR_NO_ERROR, ms);
  }

  // The next SyncGroup request's answer is delayed by ms (and those behind it).
  void delay_next_sync_group(int ms) {
    rd_kafka_mock_broker_push_request_error_rtts(_cluster, 1, sync_group_api, 1,
                                                 RD_KAFKA_RESP_ERR_NO_ERROR, ms);
  }

  // The topic's messages from its beginning, until `want` are read or `timeout` passes.
  std::vector<message> read(size_t want, std::chrono::seconds timeout = std::chrono::seconds(20)) {
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps().c_str(), err, sizeof err);
    rd_kafka_conf_set(conf, "group.id", (_topic + "-reader").c_str(), err, sizeof err);
    rd_kafka_conf_set(conf, "log_level", "2", err, sizeof err);
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    REQUIRE(rk);
    rd_kafka_topic_partition_list_t* parts = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(parts, _topic.c_str(), 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_assign(rk, parts);
    rd_kafka_topic_partition_list_destroy(parts);
    std::vector<message> out;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (out.size() < want && std::chrono::steady_clock::now() < deadline) {
      rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 100);
      if (!m) continue;
      if (!m->err) out.push_back(to_message(m));
      rd_kafka_message_destroy(m);
    }
    rd_kafka_destroy(rk);
    return out;
  }
  // The next heartbeat of the group is answered ILLEGAL_GENERATION: the assignment is lost.
  void fence_next_heartbeat() {
    constexpr int16_t heartbeat_api = 12;
    rd_kafka_mock_push_request_errors(_cluster, heartbeat_api, 1,
                                      RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION);
  }

 private:
  static constexpr int16_t produce_api = 0;
  static constexpr int16_t sync_group_api = 14;

  static message to_message(rd_kafka_message_t* m) {
    message r;
    if (m->key) r.key.emplace(static_cast<const char*>(m->key), m->key_len);
    if (m->payload) r.value.emplace(static_cast<const char*>(m->payload), m->len);
    rd_kafka_headers_t* headers = nullptr;
    if (rd_kafka_message_headers(m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      const char* name = nullptr;
      const void* value = nullptr;
      size_t size = 0;
      for (size_t i = 0; !rd_kafka_header_get_all(headers, i, &name, &value, &size); ++i) {
        r.headers[name] = value ? std::string(static_cast<const char*>(value), size) : "";
      }
    }
    return r;
  }

  std::string _topic;
  rd_kafka_t* _host = nullptr;
  rd_kafka_mock_cluster_t* _cluster = nullptr;
};
