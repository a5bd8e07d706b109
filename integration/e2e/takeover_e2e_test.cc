// Taking over from a Kafka Connect sink's offsets (issue 28, offsets.takeover.group) against the
// real broker and PostgreSQL. The "connector" is a sluice whose consumer group is named like
// Connect's (connect-<name>): what matters here is the group, its committed offsets and its
// live members, which a Connect worker's sink task keeps exactly so.
//   - while the group has a live member, the newcomer consumes nothing and says why (DEGRADED
//     "takeover", the group named);
//   - once the group is empty, the partitions it has no offsets for start at the group's
//     committed offsets: what the connector applied is not read again, what it had not is.

#include <doctest/doctest.h>

#include <chrono>
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
