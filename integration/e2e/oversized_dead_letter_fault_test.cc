// A poison message larger than the dead-letter topic takes (issue 12): it used to fail the
// dead-letter produce, which failed the batch, which stopped the connector, restart after
// restart. Now the letter reaches the dead-letter topic cut to fit, saying so in its headers,
// the full bytes are in sluice.dead_letters, and sluice goes on applying what follows.

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "integration/support/datastream_events.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/connector/http/http_test_client.h"

namespace sluice::testing {
namespace {

constexpr size_t poison_size = 5 * 1024 * 1024;
constexpr size_t dead_letter_topic_limit = 1024 * 1024;
const std::map<std::string, std::string> big_messages = {{"message.max.bytes", "8388608"}};

// 5 MB that do not decode: "{not json" and x's.
std::string poison() {
  std::string v = "{not json";
  v.resize(poison_size, 'x');
  return v;
}

// The scenario, with `extra_kafka` added to sluice's kafka settings. Returns the value of the
// dead letter as the dead-letter topic holds it.
std::string run_scenario(const std::string& extra_kafka) {
  const std::string topic = unique_name("cdc_oversized");
  const std::string dlq = unique_name("cdc_oversized_letters");
  const std::string table = unique_name("oversized_rows");
  const std::string connector = unique_name("oversized");
  create_topic(topic, 1, {{"max.message.bytes", "8388608"}});
  create_topic(dlq, 1, {{"max.message.bytes", std::to_string(dead_letter_topic_limit)}});
  std::vector<kafka_record> records = datastream_rows(table, 1, 3);
  records.push_back({"poison", poison(), 0});  // offset 3
  produce(topic, records, big_messages);

  const uint16_t port = free_port();
  std::string cfg =
      with_metrics_listen(basic_config(connector, topic, "datastream",
                                       "errors.deadletterqueue.topic.name: " + dlq + "\n", 100),
                          port);
  cfg.replace(cfg.find("kafka:\n"), 7, "kafka:\n" + extra_kafka);
  sluice_process p(cfg);
  REQUIRE_MESSAGE(caught_up(connector, 4), p.log());

  // In PostgreSQL, whole.
  const auto dead = query(
      "SELECT octet_length(value), md5(value) = md5(convert_to('{not json' || repeat('x', " +
      std::to_string(poison_size - 9) + "), 'UTF8')), kafka_offset FROM sluice.dead_letters " +
      "WHERE topic = '" + topic + "'");
  REQUIRE(dead.size() == 1);
  CHECK(str(dead[0][0]) == std::to_string(poison_size));
  CHECK(str(dead[0][1]) == "t");
  CHECK(str(dead[0][2]) == "3");

  // In the dead-letter topic, cut to fit, saying so.
  const std::vector<read_message> letters = read_topic(dlq, 1);
  REQUIRE_MESSAGE(letters.size() == 1, p.log());
  const read_message& letter = letters[0];
  CHECK(letter.key == std::optional<std::string>("poison"));
  REQUIRE(letter.value);
  CHECK(letter.value->size() < dead_letter_topic_limit);
  CHECK(letter.value->size() > 900'000);
  CHECK(*letter.value == poison().substr(0, letter.value->size()));
  CHECK(letter.headers.at("__sluice.truncated") == std::to_string(poison_size));
  CHECK(letter.headers.at("__sluice.truncated.part") == "value");
  CHECK(letter.headers.at("__sluice.offset") == "3");
  CHECK(letter.headers.at("__connect.errors.topic") == topic);
  CHECK(letter.headers.at("__connect.errors.partition") == "0");
  CHECK(letter.headers.at("__connect.errors.offset") == "3");
  CHECK(letter.headers.at("__connect.errors.connector.name") == connector);
  CHECK(letter.headers.at("__connect.errors.exception.class.name") == "sluice.dead_letter");
  CHECK_FALSE(letter.headers.at("__connect.errors.exception.message").empty());

  // Still RUNNING, and what follows is applied.
  CHECK(http_request(port, "GET", "/readyz").status == 200);
  produce(topic, datastream_rows(table, 10, 3));
  REQUIRE_MESSAGE(caught_up(connector, 7), p.log());
  CHECK(query("SELECT id FROM public.\"" + table + "\"").size() == 6);
  CHECK(http_request(port, "GET", "/status").body.find("RUNNING") != std::string::npos);
  CHECK(p.stop() == 0);
  return *letter.value;
}

}  // namespace

TEST_CASE(
    "a 5 MB poison message is dead-lettered cut to the 1 MiB topic, whole in PostgreSQL, "
    "and sluice goes on") {
  // librdkafka's defaults: the producer takes up to 1,000,000 bytes, under the topic's limit;
  // the consumer still fetches the 5 MB message (a first record batch larger than the fetch
  // sizes is returned whole).
  const std::string value = run_scenario("");
  CHECK(value.size() < 1'000'000);
}

TEST_CASE(
    "with a producer allowed 8 MB, the dead-letter topic's own max.message.bytes bounds "
    "the letter") {
  // Only DescribeConfigs tells sluice that the topic takes 1 MiB: without it the whole 5 MB
  // would go, be refused, be cut to 2.5 MB, be refused again, and fail the connector.
  const std::string value = run_scenario("  message.max.bytes: 8388608\n");
  CHECK(value.size() > 1'000'000);
}

}  // namespace sluice::testing
