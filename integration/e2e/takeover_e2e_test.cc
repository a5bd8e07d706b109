// Taking over from a Kafka Connect sink's offsets (issue 28, offsets.takeover.group) against the
// real broker and PostgreSQL. The "connector" is a sluice whose consumer group is named like
// Connect's (connect-<name>): what matters here is the group, its committed offsets and its
// live members, which a Connect worker's sink task keeps exactly so.
//   - while the group has a live member, the newcomer consumes nothing and says why (DEGRADED
//     "takeover", the group named);
//   - once the group is empty, the partitions it has no offsets for start at the group's
//     committed offsets: what the connector applied is not read again, what it had not is.

#include <doctest/doctest.h>

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "integration/support/datastream_events.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/connector/http/http_test_client.h"

namespace sluice::testing {
namespace {

using namespace std::chrono_literals;

std::string get(uint16_t port, const std::string& path) {
  try {
    return http_request(port, "GET", path).body;
  } catch (const std::exception&) {
    return "";
  }
}

int64_t rows_in(const std::string& table) {
  return count_of("SELECT count(*) FROM public." + table);
}

bool table_exists(const std::string& table) {
  return count_of("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = '" +
                  table + "'") == 1;
}

// A plain librdkafka consumer of `group`, as a Connect worker's sink task is one; it never
// commits on its own (enable.auto.commit off), so the group's offsets are the test's.
class group_member {
 public:
  explicit group_member(const std::string& group) {
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    for (const auto& [k, v] :
         std::map<std::string, std::string>{{"bootstrap.servers", kafka_bootstrap()},
                                            {"group.id", group},
                                            {"enable.auto.commit", "false"},
                                            {"auto.offset.reset", "earliest"}}) {
      REQUIRE(rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) == RD_KAFKA_CONF_OK);
    }
    _rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    REQUIRE_MESSAGE(_rk != nullptr, err);
    rd_kafka_poll_set_consumer(_rk);
  }
  ~group_member() {
    leave();
    rd_kafka_destroy(_rk);
  }
  group_member(const group_member&) = delete;
  group_member& operator=(const group_member&) = delete;

  // Commits these offsets for the group (the next offset to read, per partition).
  void commit(const std::string& topic, const std::map<int, int64_t>& next) {
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    for (const auto& [partition, offset] : next)
      rd_kafka_topic_partition_list_add(list, topic.c_str(), partition)->offset = offset;
    const rd_kafka_resp_err_t e = rd_kafka_commit(_rk, list, /*async=*/0);
    rd_kafka_topic_partition_list_destroy(list);
    REQUIRE_MESSAGE(e == RD_KAFKA_RESP_ERR_NO_ERROR, rd_kafka_err2str(e));
  }

  // Subscribes and polls on a thread of its own until leave(): a live member of the group.
  void join(const std::string& topic) {
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), RD_KAFKA_PARTITION_UA);
    REQUIRE(rd_kafka_subscribe(_rk, list) == RD_KAFKA_RESP_ERR_NO_ERROR);
    rd_kafka_topic_partition_list_destroy(list);
    _polling = std::thread([this] {
      while (!_stop.load()) {
        if (rd_kafka_message_t* m = rd_kafka_consumer_poll(_rk, 100)) rd_kafka_message_destroy(m);
      }
    });
  }

  // Leaves the group (the connector stopped).
  void leave() {
    if (!_polling.joinable()) return;
    _stop = true;
    _polling.join();
    rd_kafka_consumer_close(_rk);
  }

 private:
  rd_kafka_t* _rk = nullptr;
  std::atomic<bool> _stop{false};
  std::thread _polling;
};

// 10 rows on each of the topic's two partitions: odd ids on 0, even ids on 1, in id order.
void produce_two_partitions(const std::string& topic, const std::string& table) {
  std::vector<kafka_record> rows = datastream_rows(table, 1, 20);
  for (size_t i = 0; i < rows.size(); ++i)
    rows[i].partition = static_cast<int>(i % 2);
  produce(topic, rows);
}

}  // namespace

TEST_CASE("a takeover waits for the connector's group to empty, then starts at its offsets") {
  const std::string topic = unique_name("takeover");
  const std::string table = unique_name("takeover_t");
  const std::string connect_group = unique_name("connect-jdbc");
  const std::string name = unique_name("takeover_sluice");
  create_topic(topic, 2);
  std::vector<kafka_record> first = datastream_rows(table, 1, 20);
  for (size_t i = 0; i < first.size(); ++i)
    first[i].partition = static_cast<int>(i % 2);
  produce(topic, first);

  // The connector applies the first 20 and commits them to its group; it keeps running.
  sluice_process connector(basic_config(connect_group, topic), "takeover_connector");
  REQUIRE_MESSAGE(caught_up(connect_group, 20), connector.log());
  // Taken from the connector's replica later: if the newcomer read the topic from its start
  // (its auto.offset.reset is earliest), these rows would come back.
  execute("DELETE FROM public." + table);

  const uint16_t port = free_port();
  sluice_process newcomer(
      with_metrics_listen(basic_config(name, topic, "datastream",
                                       "offsets.takeover.group: " + connect_group + "\n"),
                          port),
      "takeover_newcomer");
  std::string status;
  REQUIRE_MESSAGE(wait_until(
                      [&] {
                        status = get(port, "/status");
                        return status.find("\"DEGRADED\"") != std::string::npos &&
                               status.find("takeover") != std::string::npos &&
                               status.find(connect_group) != std::string::npos &&
                               status.find("live member") != std::string::npos;
                      },
                      60s),
                  status << "\n"
                         << newcomer.log());
  std::this_thread::sleep_for(3s);
  CHECK(rows_in(table) == 0);  // nothing consumed while the connector runs
  CHECK(committed_messages(name) == 0);

  CHECK(connector.stop() == 0);  // the switch: stop the connector
  std::vector<kafka_record> second = datastream_rows(table, 21, 20);
  for (size_t i = 0; i < second.size(); ++i)
    second[i].partition = static_cast<int>(i % 2);
  produce(topic, second);
  REQUIRE_MESSAGE(caught_up(name, 40, 90s), newcomer.log());
  // Exactly the 20 the connector had not applied: none of the first 20 read again.
  CHECK(rows_in(table) == 20);
  CHECK(count_of("SELECT count(*) FROM public." + table + " WHERE id <= 20") == 0);
  CHECK(newcomer.log().find("committed offset") != std::string::npos);
  REQUIRE(wait_until([&] { return get(port, "/status").find("\"RUNNING\"") != std::string::npos; },
                     30s));
  CHECK(newcomer.stop() == 0);
}

TEST_CASE("a takeover starts each partition at the group's commit, else at auto.offset.reset") {
  const std::string topic = unique_name("takeover_plain");
  const std::string table = unique_name("takeover_p");
  const std::string group = unique_name("connect-x");
  const std::string name = unique_name("takeover_plain_sluice");
  create_topic(topic, 2);
  produce_two_partitions(topic, table);
  // The connector had committed partition 0 up to offset 6 (ids 1..11 applied), nothing of 1,
  // and still runs: a member of its group, subscribed and polling.
  group_member member(group);
  member.commit(topic, {{0, 6}});
  member.join(topic);

  const uint16_t port = free_port();
  sluice_process sluice(
      with_metrics_listen(
          basic_config(name, topic, "datastream", "offsets.takeover.group: " + group + "\n"), port),
      "takeover_plain");
  std::string status;
  REQUIRE_MESSAGE(wait_until(
                      [&] {
                        status = get(port, "/status");
                        return contains(status, "\"DEGRADED\"") &&
                               contains(status, "group " + group + " has 1 live member");
                      },
                      60s),
                  status << "\n"
                         << sluice.log());
  std::this_thread::sleep_for(3s);
  CHECK_FALSE(table_exists(table));  // nothing consumed while the group has a member
  CHECK(committed_messages(name) == 0);

  member.leave();  // the connector stops: sluice goes on by itself
  REQUIRE_MESSAGE(caught_up(name, 20, 90s), sluice.log());
  // Partition 0 from offset 6 (ids 13..19), partition 1 from its start (earliest, as
  // basic_config says): ids 1..11 of partition 0 are not read again.
  CHECK(rows_in(table) == 14);
  CHECK(count_of("SELECT count(*) FROM public." + table + " WHERE id % 2 = 1 AND id < 13") == 0);
  CHECK(contains(sluice.log(), topic + "[0] starts at 6, group " + group + "'s committed offset"));
  CHECK_FALSE(contains(sluice.log(), topic + "[1] starts at"));
  REQUIRE(wait_until([&] { return contains(get(port, "/status"), "\"RUNNING\""); }, 30s));
  CHECK(sluice.stop() == 0);
}

TEST_CASE("a takeover group Kafka has never heard of: every partition as auto.offset.reset says") {
  const std::string topic = unique_name("takeover_none");
  const std::string table = unique_name("takeover_n");
  const std::string name = unique_name("takeover_none_sluice");
  create_topic(topic, 2);
  produce_two_partitions(topic, table);
  sluice_process sluice(
      basic_config(name, topic, "datastream",
                   "offsets.takeover.group: " + unique_name("connect-nobody") + "\n"),
      "takeover_none");
  REQUIRE_MESSAGE(caught_up(name, 20, 90s), sluice.log());
  CHECK(rows_in(table) == 20);
  CHECK(contains(sluice.log(), "has no committed offsets"));
  CHECK(sluice.stop() == 0);
}

TEST_CASE("offsets.takeover.group must not be sluice's own group") {
  const std::string name = unique_name("takeover_self");
  const std::string path = write_run_file(
      "takeover_self",
      basic_config(name, "t", "datastream", "offsets.takeover.group: " + name + "\n"));
  const command_result r = run_sluice({"check", "-c", path}, "", 60);
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err + r.out, "offsets.takeover.group"));
  CHECK(contains(r.err + r.out, "sluice's own group"));
}

}  // namespace sluice::testing
