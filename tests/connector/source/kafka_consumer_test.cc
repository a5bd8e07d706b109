#include "connector/source/kafka_consumer.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/connector/source/mock_topic.h"

// kafka_consumer against librdkafka's in-process mock cluster: no broker needed.

using namespace sluice;
using namespace std::chrono_literals;

namespace {

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
    got += c.poll(batch, 100, SIZE_MAX, 100ms);
  }
  return got;
}

}  // namespace

TEST_CASE("a partition paused before its assignment was lost is consumed when assigned again") {
  // The pipeline pauses a partition it was fenced from (another owner holds its epoch); if
  // the group then drops the assignment and hands the partition back, it must flow again.
  const std::string topic = "paused_then_lost";
  std::vector<std::string> values;
  for (int i = 0; i < 50; ++i)
    values.push_back("m" + std::to_string(i));
  mock_topic cluster(topic, values);
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

TEST_CASE("a poll stops at its byte budget: the message that reaches it is the last taken") {
  // The pipeline gives each poll what is left of batch.max.bytes: 1 KB messages against a
  // 2.5 KB budget are three a poll, however many the count would allow.
  const std::string topic = "byte_budget";
  std::vector<std::string> values(30, std::string(1000, 'v'));
  mock_topic cluster(topic, values);
  recording_listener listener;
  kafka_consumer consumer(settings_for(cluster, topic), listener);
  size_t got = 0;
  std::vector<size_t> sizes;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (got < 30 && std::chrono::steady_clock::now() < deadline) {
    std::vector<kafka_message> batch;
    const size_t n = consumer.poll(batch, 100, 2500, 100ms);
    CHECK(n == batch.size());
    if (n > 0) sizes.push_back(n);
    got += n;
  }
  CHECK(got == 30);
  for (const size_t n : sizes)
    CHECK(n <= 3);
  CHECK(std::count(sizes.begin(), sizes.end(), size_t{3}) >= 5);  // most polls fill up
  consumer.close();
}

TEST_CASE("a member stopped between joining the group and its first assignment closes cleanly") {
  // librdkafka 2.0 aborts (an assertion in the cooperative-sticky assignor, #4312) when the
  // consumer is destroyed after its JoinGroup was answered and before its SyncGroup was: a
  // connector told to stop a second after it joined died on its way out. The SyncGroup answer
  // is held back here so that close() lands in that window every time.
  const std::string topic = "stopped_while_joining";
  mock_topic cluster(topic, {"m0", "m1"});
  cluster.delay_next_sync_group(1500);
  recording_listener listener;
  const auto started = std::chrono::steady_clock::now();
  {
    kafka_consumer consumer(settings_for(cluster, topic), listener);
    const auto deadline = started + 30s;
    while (!consumer.joined() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(5ms);
    REQUIRE(consumer.joined());
    consumer.close();
  }
  CHECK(listener.assigned == 0);  // the listener hears nothing of an assignment while closing
  CHECK(std::chrono::steady_clock::now() - started < 20s);
}
