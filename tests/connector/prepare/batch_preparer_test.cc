#include "connector/prepare/batch_preparer.h"

#include <doctest/doctest.h>

#include <chrono>
#include <limits>
#include <string>
#include <vector>

#include "connector/config/config_loader.h"
#include "connector/metrics/metrics_registry.h"
#include "tests/connector/source/mock_topic.h"

// The prepare stage on real librdkafka messages, read from librdkafka's in-process mock
// cluster: no broker needed.

using namespace sluice;

namespace {

std::string event(int id) {
  const std::string lsn = "0/" + std::to_string(100 + id);
  return R"({"uuid":"u)" + std::to_string(id) +
         R"(","read_timestamp":"2026-01-01T00:00:01.000Z","source_timestamp":1767225600000,)"
         R"("object":"public_rows","read_method":"postgresql-cdc","stream_name":"s",)"
         R"("schema_key":"k","sort_keys":[1767225600000,")" +
         lsn +
         R"("],"source_metadata":{"schema":"public","table":"rows","is_deleted":false,)"
         R"("change_type":"INSERT","primary_keys":["id"],"lsn":")" +
         lsn + R"(","tx_id":1},"payload":{"id":)" + std::to_string(id) + "}}";
}

// Every message of a mock topic's partition, read back as librdkafka hands them to sluice.
class mock_partition {
 public:
  mock_partition(const std::string& topic, const std::vector<std::string>& values,
                 const std::vector<int64_t>& timestamps = {})
      : _cluster(topic, values, timestamps) {
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", _cluster.bootstraps().c_str(), err, sizeof err);
    rd_kafka_conf_set(conf, "group.id", "reader", err, sizeof err);
    _consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    REQUIRE(_consumer);
    rd_kafka_poll_set_consumer(_consumer);
    rd_kafka_topic_partition_list_t* parts = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(parts, topic.c_str(), 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
    REQUIRE(rd_kafka_assign(_consumer, parts) == RD_KAFKA_RESP_ERR_NO_ERROR);
    rd_kafka_topic_partition_list_destroy(parts);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (messages.size() < values.size() && std::chrono::steady_clock::now() < deadline) {
      kafka_message m(rd_kafka_consumer_poll(_consumer, 100));
      if (m && !m->err) messages.push_back(std::move(m));
    }
    REQUIRE(messages.size() == values.size());
  }
  ~mock_partition() {
    messages.clear();  // before the consumer they belong to
    rd_kafka_consumer_close(_consumer);
    rd_kafka_destroy(_consumer);
  }

  std::vector<kafka_message> messages;

 private:
  mock_topic _cluster;  // first: outlives the consumer
  rd_kafka_t* _consumer = nullptr;
};

config load(const std::string& extra) {
  load_result r = load_config(R"yaml(name: prepare-test
kafka:
  bootstrap.servers: 127.0.0.1:9092
topics: [cdc]
postgres:
  dsn: postgresql://sluice@127.0.0.1:5432/replica
format: datastream
)yaml" + extra,
                              [](std::string_view) { return std::optional<std::string>(); });
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  return r.value();
}

// Messages [from, to) of the partition as one raw batch.
raw_batch slice(mock_partition& p, size_t from, size_t to) {
  raw_batch b;
  for (size_t i = from; i < to; ++i)
    b.messages.push_back(std::move(p.messages[i]));
  return b;
}

}  // namespace

TEST_CASE("under errors.tolerance none, no batch after the poison's moves its partition on") {
  // Offsets 0-2 decode, 3 cannot, 4-6 decode. The pipeline prepares the next batch while a
  // lane still applies the poison's: that batch must not carry the partition past offset 3.
  mock_partition p("cdc",
                   {event(1), event(2), event(3), "{not json", event(4), event(5), event(6)});
  const config cfg = load("errors.tolerance: none\n");
  table_catalog catalog;
  partition_table partitions;
  const topic_partition tp{"cdc", partition_id{0}};
  partitions.claim(tp, owner_epoch{1}, kafka_offset{-1}, 0);
  metrics_registry metrics;
  batch_preparer prepare(cfg, catalog, partitions, 1, metrics);

  std::vector<lane_batch> first = prepare.prepare(slice(p, 0, 5));
  REQUIRE(first.size() == 1);
  CHECK(first[0].poison.find("cdc[0]@3") != std::string::npos);
  REQUIRE(first[0].progress.size() == 1);
  CHECK(first[0].progress[0].next == kafka_offset{3});
  REQUIRE(first[0].merged.tables.size() == 1);
  CHECK(first[0].merged.tables[0].rows.size() == 3);  // the fourth event comes after the poison
  CHECK(first[0].dead_letters.empty());

  std::vector<lane_batch> second = prepare.prepare(slice(p, 5, 7));
  REQUIRE(second.size() == 1);
  CHECK(second[0].progress.empty());
  CHECK(second[0].merged.tables.empty());
  CHECK(second[0].poison.empty());  // the poison was reported once
}

TEST_CASE("under errors.tolerance all, the poison is a dead letter and later batches go on") {
  mock_partition p("cdc", {event(1), "{not json", event(2), event(3)});
  const config cfg = load("errors.tolerance: all\n");
  table_catalog catalog;
  partition_table partitions;
  partitions.claim({"cdc", partition_id{0}}, owner_epoch{1}, kafka_offset{-1}, 0);
  metrics_registry metrics;
  batch_preparer prepare(cfg, catalog, partitions, 1, metrics);

  std::vector<lane_batch> first = prepare.prepare(slice(p, 0, 3));
  REQUIRE(first[0].progress.size() == 1);
  CHECK(first[0].progress[0].next == kafka_offset{3});
  REQUIRE(first[0].dead_letters.size() == 1);
  CHECK(first[0].dead_letters[0].value == std::optional<std::string>("{not json"));
  CHECK(first[0].poison.empty());
  std::vector<lane_batch> second = prepare.prepare(slice(p, 3, 4));
  REQUIRE(second[0].progress.size() == 1);
  CHECK(second[0].progress[0].expected == kafka_offset{3});
  CHECK(second[0].progress[0].next == kafka_offset{4});
}

TEST_CASE("a message with an absurd Kafka timestamp is a dead letter, never an overflow") {
  // INT64_MAX / 2 ms: times 1'000'000 overflows int64 (UBSan would say so). The messages
  // around it keep their times.
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const int64_t absurd = std::numeric_limits<int64_t>::max() / 2;
  mock_partition p("cdc", {event(1), event(2), event(3)}, {now_ms - 1000, absurd, now_ms});
  const config cfg = load("errors.tolerance: all\n");
  table_catalog catalog;
  partition_table partitions;
  partitions.claim({"cdc", partition_id{0}}, owner_epoch{1}, kafka_offset{-1}, 0);
  metrics_registry metrics;
  batch_preparer prepare(cfg, catalog, partitions, 1, metrics);

  std::vector<lane_batch> lanes = prepare.prepare(slice(p, 0, 3));
  REQUIRE(lanes.size() == 1);
  const lane_batch& b = lanes[0];
  REQUIRE(b.dead_letters.size() == 1);
  const dead_letter& d = b.dead_letters[0];
  CHECK(d.origin.offset == kafka_offset{1});
  CHECK(d.origin.timestamp == timestamp_ns{0});
  CHECK(d.reason.find("bad_timestamp") == 0);
  CHECK(d.reason.find(std::to_string(absurd)) != std::string::npos);
  CHECK(d.reason.find("CreateTime") != std::string::npos);
  CHECK(d.value == std::optional<std::string>(event(2)));
  REQUIRE(b.merged.tables.size() == 1);
  CHECK(b.merged.tables[0].rows.size() == 2);
  // The batch's clock is the newest sane time; the absurd one plays no part.
  CHECK(b.newest_message == timestamp_ns{now_ms * 1'000'000});
  CHECK(b.message_timestamps.size() == 2);
  REQUIRE(b.progress.size() == 1);
  CHECK(b.progress[0].next == kafka_offset{3});
}

TEST_CASE("under errors.tolerance none, an absurd Kafka timestamp stops its partition there") {
  const int64_t absurd = std::numeric_limits<int64_t>::max();
  mock_partition p("cdc", {event(1), event(2)}, {0, absurd});
  const config cfg = load("errors.tolerance: none\n");
  table_catalog catalog;
  partition_table partitions;
  partitions.claim({"cdc", partition_id{0}}, owner_epoch{1}, kafka_offset{-1}, 0);
  metrics_registry metrics;
  batch_preparer prepare(cfg, catalog, partitions, 1, metrics);

  std::vector<lane_batch> lanes = prepare.prepare(slice(p, 0, 2));
  REQUIRE(lanes.size() == 1);
  CHECK(lanes[0].poison.find("cdc[0]@1") != std::string::npos);
  CHECK(lanes[0].poison.find("bad_timestamp") != std::string::npos);
  REQUIRE(lanes[0].progress.size() == 1);
  CHECK(lanes[0].progress[0].next == kafka_offset{1});
}
