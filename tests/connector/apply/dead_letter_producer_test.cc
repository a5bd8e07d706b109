#include "connector/apply/dead_letter_producer.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/connector/source/mock_topic.h"

// dead_letter_producer against librdkafka's in-process mock cluster: no broker needed. The
// mock cluster does not answer DescribeConfigs, so the producer's own message.max.bytes
// bounds the records here; the real broker's max.message.bytes is exercised by the fault
// test fault.oversized_dead_letter.

using namespace sluice;
using namespace std::chrono_literals;

namespace {

std::vector<std::pair<std::string, std::string>> properties(const mock_topic& cluster) {
  return {{"bootstrap.servers", cluster.bootstraps()},
          {"message.max.bytes", "20000"},
          {"log_level", "2"}};
}

dead_letter_producer_options options(std::chrono::milliseconds delivery_timeout = 0ms) {
  dead_letter_producer_options o;
  o.connector = "unit";
  o.describe_timeout = 500ms;  // the mock cluster names no controller to ask
  o.delivery_timeout = delivery_timeout;
  return o;
}

dead_letter letter(int64_t offset, size_t value_size) {
  dead_letter d;
  d.reason = "cannot decode";
  d.origin.topic = "cdc";
  d.origin.partition = partition_id{0};
  d.origin.offset = kafka_offset{offset};
  d.key = "k" + std::to_string(offset);
  d.value = std::string(value_size, static_cast<char>('a' + offset % 26));
  return d;
}

}  // namespace

TEST_CASE("a letter larger than the producer takes reaches the topic cut, saying so in headers") {
  mock_topic cluster("dlq_cut", {});
  dead_letter_producer producer(properties(cluster), "dlq_cut", options());
  CHECK(producer.record_budget() == 20000 - 61);
  const dead_letter big = letter(7, 100'000);
  producer.send({big});

  const auto got = cluster.read(1);
  REQUIRE(got.size() == 1);
  const mock_topic::message& m = got[0];
  CHECK(m.key == big.key);
  REQUIRE(m.value);
  CHECK(m.value->size() > 18'000);
  CHECK(m.value->size() < 20'000);
  CHECK(*m.value == big.value->substr(0, m.value->size()));
  CHECK(m.headers.at("__sluice.truncated") == "100000");
  CHECK(m.headers.at("__sluice.truncated.part") == "value");
  CHECK(m.headers.at("__sluice.reason") == "cannot decode");
  CHECK(m.headers.at("__sluice.offset") == "7");
  CHECK(m.headers.at("__connect.errors.topic") == "cdc");
  CHECK(m.headers.at("__connect.errors.partition") == "0");
  CHECK(m.headers.at("__connect.errors.offset") == "7");
  CHECK(m.headers.at("__connect.errors.connector.name") == "unit");
  CHECK(m.headers.at("__connect.errors.exception.class.name") == "sluice.dead_letter");
  CHECK(m.headers.at("__connect.errors.exception.message") == "cannot decode");
}

TEST_CASE("a record the broker refuses as too large is sent once more, cut to half") {
  mock_topic cluster("dlq_refused", {});
  dead_letter_producer producer(properties(cluster), "dlq_refused", options());
  const dead_letter fits = letter(1, 15'000);  // whole under message.max.bytes
  cluster.fail_next_produces({RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE});
  producer.send({fits});

  const auto got = cluster.read(1);
  REQUIRE(got.size() == 1);
  REQUIRE(got[0].value);
  CHECK(got[0].value->size() < 8'000);
  CHECK(got[0].headers.at("__sluice.truncated") == "15000");
  // Later letters are cut below the refused size at once.
  CHECK(producer.record_budget() < 15'500);
}

TEST_CASE("a record refused twice as too large fails the send") {
  mock_topic cluster("dlq_refused_twice", {});
  dead_letter_producer producer(properties(cluster), "dlq_refused_twice", options());
  cluster.fail_next_produces(
      {RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE});
  CHECK_THROWS_AS(producer.send({letter(1, 15'000)}), std::runtime_error);
}

TEST_CASE("delivery reports arriving after send() gave up land in memory the producer owns") {
  // The first Produce answer comes 1.5 s late; each send() waits 300 ms. Every send that
  // gives up leaves a message whose report comes later, served by a later send's poll.
  mock_topic cluster("dlq_late", {});
  dead_letter_producer producer(properties(cluster), "dlq_late", options(300ms));
  cluster.delay_next_produce(1500);
  CHECK_THROWS_WITH_AS(producer.send({letter(1, 100)}),
                       doctest::Contains("delivery report(s) missing"), std::runtime_error);
  int gave_up = 1;
  bool sent = false;
  for (int attempt = 0; attempt < 50 && !sent; ++attempt) {
    try {
      producer.send({letter(2, 100), letter(3, 100)});
      sent = true;
    } catch (const std::runtime_error&) {
      ++gave_up;
    }
  }
  REQUIRE(sent);
  INFO("sends given up: " << gave_up);
  std::set<std::string> offsets;
  for (const auto& m : cluster.read(3))
    offsets.insert(m.headers.at("__sluice.offset"));
  CHECK(offsets == std::set<std::string>{"1", "2", "3"});
}

TEST_CASE("a producer destroyed while reports are outstanding frees their state, nothing after") {
  mock_topic cluster("dlq_destroyed", {});
  auto producer =
      std::make_unique<dead_letter_producer>(properties(cluster), "dlq_destroyed", options(200ms));
  cluster.delay_next_produce(3000);
  CHECK_THROWS_AS(producer->send({letter(1, 100), letter(2, 100)}), std::runtime_error);
  // Purged and their reports served at once: the late answer finds no message and no state
  // (under ASan, a state freed early or never is an error).
  const auto start = std::chrono::steady_clock::now();
  producer.reset();
  CHECK(std::chrono::steady_clock::now() - start < 2s);
}

TEST_CASE("several lanes sending at once each get their own letters acknowledged") {
  mock_topic cluster("dlq_lanes", {});
  dead_letter_producer producer(properties(cluster), "dlq_lanes", options());
  constexpr int lanes = 4, sends = 15, per_send = 4;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int lane = 0; lane < lanes; ++lane) {
    threads.emplace_back([&, lane] {
      for (int s = 0; s < sends; ++s) {
        std::vector<dead_letter> letters;
        for (int i = 0; i < per_send; ++i) {
          // Every tenth letter needs cutting.
          const int64_t offset = (lane * sends + s) * per_send + i;
          letters.push_back(letter(offset, offset % 10 == 0 ? 30'000 : 200));
        }
        try {
          producer.send(letters);
        } catch (const std::exception&) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads)
    t.join();
  CHECK(failures == 0);
  std::set<std::string> offsets;
  for (const auto& m : cluster.read(lanes * sends * per_send))
    offsets.insert(m.headers.at("__sluice.offset"));
  CHECK(offsets.size() == lanes * sends * per_send);
}

TEST_CASE(
    "a send that fails tells the connector the topic is unavailable, the next one clears it") {
  mock_topic cluster("dlq_health", {});
  std::vector<std::string> told;
  dead_letter_producer_options o = options(2s);
  o.on_health = [&](const std::string& why) { told.push_back(why); };
  dead_letter_producer producer(properties(cluster), "dlq_health", o);
  producer.send({letter(0, 10)});  // connected, the producer id acquired
  CHECK(told.empty());
  // The broker answers only after 3 s: the send gives up at 2 s, the batch must not commit.
  cluster.delay_next_produce(3000);
  CHECK_THROWS_AS(producer.send({letter(1, 10)}), dead_letter_queue_error);
  CHECK(producer.unavailable());
  REQUIRE(told.size() == 1);
  CHECK(told[0].find("dead letter queue dlq_health") != std::string::npos);
  // Sent again (what the lane does after its backoff): delivered, and said so once.
  producer.send({letter(1, 10)});
  CHECK(!producer.unavailable());
  REQUIRE(told.size() == 2);
  CHECK(told[1].empty());
  producer.send({letter(2, 10)});
  CHECK(told.size() == 2);
  // Letter 1 may be there twice (the first send's request was answered late): never missing.
  CHECK(cluster.read(4).size() >= 3);
}

TEST_CASE("a batch given up while the topic failed no longer holds the connector degraded") {
  mock_topic cluster("dlq_withdrawn", {});
  std::vector<std::string> told;
  dead_letter_producer_options o = options(2s);
  o.on_health = [&](const std::string& why) { told.push_back(why); };
  dead_letter_producer producer(properties(cluster), "dlq_withdrawn", o);
  producer.send({letter(0, 10)});
  cluster.delay_next_produce(3000);
  CHECK_THROWS_AS(producer.send({letter(1, 10)}), dead_letter_queue_error);
  REQUIRE(producer.unavailable());
  // The lane's batch is abandoned (a rebalance): nothing waits on the topic any more, so the
  // pipeline may commit again, and /status no longer shows the dead-letter queue.
  producer.withdrawn();
  CHECK(!producer.unavailable());
  REQUIRE(told.size() == 2);
  CHECK(told[1].empty());
  producer.withdrawn();  // said once
  CHECK(told.size() == 2);
}
