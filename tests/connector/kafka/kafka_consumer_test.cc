#include "connector/kafka/kafka_consumer.h"

#include <doctest/doctest.h>
#include <librdkafka/rdkafka_mock.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

// kafka_consumer against librdkafka's in-process mock cluster: no broker needed.

using namespace sluice;
using namespace std::chrono_literals;

namespace {

constexpr int16_t heartbeat_api = 12;

// A one-broker mock cluster with a one-partition topic holding `messages` messages.
class mock_topic {
 public:
  mock_topic(const std::string& topic, int messages) {
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
    for (int i = 0; i < messages; ++i) {
      const std::string value = "m" + std::to_string(i);
      REQUIRE(rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                                RD_KAFKA_V_END) == 0);
    }
    REQUIRE(rd_kafka_flush(producer, 10000) == 0);
    rd_kafka_destroy(producer);
  }
  ~mock_topic() {
    rd_kafka_mock_cluster_destroy(_cluster);
    rd_kafka_destroy(_host);
  }

  std::string bootstraps() const { return rd_kafka_mock_cluster_bootstraps(_cluster); }
  // The next heartbeat of the group is answered ILLEGAL_GENERATION: the assignment is lost.
  void fence_next_heartbeat() {
    rd_kafka_mock_push_request_errors(_cluster, heartbeat_api, 1,
                                      RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION);
  }

 private:
  rd_kafka_t* _host = nullptr;
  rd_kafka_mock_cluster_t* _cluster = nullptr;
};

// Starts every assigned partition at its beginning and counts what happens.
struct recording_listener : assignment_listener {
  int assigned = 0;
  int lost = 0;
  std::vector<int64_t> on_assigned(const std::vector<topic_partition>& parts) override {
    ++assigned;
    return std::vector<int64_t>(parts.size(), RD_KAFKA_OFFSET_BEGINNING);
  }
  void on_revoked(const std::vector<topic_partition>&, bool was_lost) override {
    if (was_lost) ++lost;
  }
};

kafka_settings settings_for(const mock_topic& cluster, const std::string& topic) {
  kafka_settings s;
  s.properties = {{"bootstrap.servers", cluster.bootstraps()},
                  {"group.id", topic + "-group"},
                  {"session.timeout.ms", "3000"},
                  {"heartbeat.interval.ms", "300"},
                  {"log_level", "2"}};
  s.topics = {topic};
  return s;
}

// Polls until `done` or `timeout`; returns the messages polled.
template <typename Done>
size_t poll_until(kafka_consumer& c, Done done, std::chrono::seconds timeout) {
  size_t got = 0;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    std::vector<kafka_message> batch;
    got += c.poll(batch, 100, 100ms);
  }
  return got;
}

}  // namespace

TEST_CASE("a partition paused before its assignment was lost is consumed when assigned again") {
  // The pipeline pauses a partition it was fenced from (another owner holds its epoch); if
  // the group then drops the assignment and hands the partition back, it must flow again.
  const std::string topic = "paused_then_lost";
  mock_topic cluster(topic, 50);
  recording_listener listener;
  kafka_consumer consumer(settings_for(cluster, topic), listener);
  const auto until_assigned = [&](int n) { return [&, n] { return listener.assigned == n; }; };
  const auto never = [] { return false; };

  size_t first = poll_until(consumer, until_assigned(1), 30s);
  for (int i = 0; i < 10 && first < 50; ++i)  // a busy machine may need more than a second
    first += poll_until(consumer, never, 1s);
  CHECK(first == 50);

  consumer.pause({{topic, partition_id{0}}});
  cluster.fence_next_heartbeat();
  // Assigned again from its beginning: all 50 messages arrive once more.
  size_t again = poll_until(consumer, until_assigned(2), 30s);
  REQUIRE(listener.lost == 1);
  REQUIRE(listener.assigned == 2);
  for (int i = 0; i < 10 && again < 50; ++i)
    again += poll_until(consumer, never, 1s);
  CHECK(again == 50);
  consumer.close();
}
