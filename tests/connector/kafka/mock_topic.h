#pragma once

#include <doctest/doctest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <string>
#include <vector>

// A one-broker librdkafka mock cluster (in process, no broker needed) with a one-partition
// topic holding `values` in order, with the CreateTime `timestamps` (ms) given, else now.
class mock_topic {
 public:
  mock_topic(const std::string& topic, const std::vector<std::string>& values,
             const std::vector<int64_t>& timestamps = {}) {
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
  // The next heartbeat of the group is answered ILLEGAL_GENERATION: the assignment is lost.
  void fence_next_heartbeat() {
    constexpr int16_t heartbeat_api = 12;
    rd_kafka_mock_push_request_errors(_cluster, heartbeat_api, 1,
                                      RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION);
  }

 private:
  rd_kafka_t* _host = nullptr;
  rd_kafka_mock_cluster_t* _cluster = nullptr;
};
