// Transient failures that outlast errors.retry.max (issue 27): each used to end in FAILED, the
// next start repeating it. Now the connector goes DEGRADED, naming what it waits for in /status
// and sluice_degraded{dependency}, keeps retrying, and converges by itself once the cause is
// cleared, nothing lost:
//   - an auto.evolve ALTER behind an analyst's open transaction: a short lock_timeout of its
//     own (readers are not queued behind it for long), the table and the holder named;
//   - a statement cancelled by statement_timeout at every attempt (a slow trigger);
//   - a dead-letter topic that cannot be written (it does not exist yet): the batch with the
//     letter does not commit until the letter is in the topic;
//   - a stop meanwhile, every queue full behind the stalled lane: it drains what can commit and
//     ends, instead of waiting for room that never comes.
// And a partition fenced by another owner's epoch while the group still assigns it here: it
// used to stay paused for good, silently; now it shows (DEGRADED, both epochs, a gauge) and is
// claimed again after a grace.

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <pqxx/connection>
#include <pqxx/transaction>

#include "integration/support/datastream_events.h"
#include "integration/support/metrics_text.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/connector/http/http_test_client.h"

namespace sluice::testing {
namespace {

using namespace std::chrono_literals;

// Quick quiet retries, so that the transient wait shows within seconds.
const std::string quick_retries =
    "errors.retry.max: 1\n"
    "errors.retry.backoff.max: 500ms\n";

std::string get(uint16_t port, const std::string& path) {
  try {
    return http_request(port, "GET", path).body;
  } catch (const std::exception&) {
    return "";
  }
}

double degraded_gauge(uint16_t port, const std::string& dependency) {
  return metric_sample(get(port, "/metrics"), "sluice_degraded{dependency=\"" + dependency + "\"}");
}

// Waits until /status shows DEGRADED with every one of `parts` in its reason.
bool degraded_with(uint16_t port, const std::vector<std::string>& parts, std::string& status) {
  return wait_until(
      [&] {
        status = get(port, "/status");
        if (status.find("\"DEGRADED\"") == std::string::npos) return false;
        for (const std::string& p : parts)
          if (status.find(p) == std::string::npos) return false;
        return true;
      },
      60s);
}

bool running_again(uint16_t port) {
  return wait_until([&] { return get(port, "/status").find("\"RUNNING\"") != std::string::npos; },
                    60s);
}

}  // namespace

TEST_CASE("an ALTER behind an open transaction waits DEGRADED, naming the holder, and converges") {
  const std::string topic = unique_name("cdc_ddl_wait");
  const std::string connector = unique_name("ddl_wait");
  const std::string s = unique_name("ddlwait");
  create_topic(topic, 1);
  produce(topic, {datastream_record(s, "orders", 1, 101, ",\"v\":1")});
  const uint16_t port = free_port();
  sluice_process p(
      with_metrics_listen(basic_config(connector, topic, "datastream",
                                       quick_retries + "postgres.ddl.lock.timeout: 300ms\n", 100),
                          port));
  REQUIRE_MESSAGE(caught_up(connector, 1), p.log());

  // An analyst's transaction holds the table (ACCESS SHARE) and stays open.
  pqxx::connection analyst(postgres_dsn());
  pqxx::work held(analyst);
  held.exec("SET LOCAL application_name = 'analyst'");
  held.exec("SELECT count(*) FROM \"" + s + "\".orders");
  const std::string pid = held.exec("SELECT pg_backend_pid()")[0][0].c_str();

  // A new column: auto.evolve's ALTER needs ACCESS EXCLUSIVE.
  produce(topic, {datastream_record(s, "orders", 2, 102, ",\"v\":2,\"w\":7")});
  std::string status;
  REQUIRE_MESSAGE(degraded_with(port, {s + ".orders", "backend " + pid, "analyst"}, status),
                  status << "\n"
                         << p.log());
  CHECK(degraded_gauge(port, "postgres statements") == 1);
  CHECK(status.find("FAILED") == std::string::npos);
  // Its lock waits are short: another reader of the table gets through meanwhile, never
  // queued behind the ALTER for longer than its lock timeout.
  for (int i = 0; i < 5; ++i) {
    pqxx::connection reader(postgres_dsn());
    pqxx::work r(reader);
    r.exec("SET LOCAL statement_timeout = '2s'");
    CHECK(std::stoi(r.exec("SELECT count(*) FROM \"" + s + "\".orders")[0][0].c_str()) == 1);
    std::this_thread::sleep_for(200ms);
  }
  CHECK(p.running());

  held.commit();  // the analyst is done: the ALTER goes through, the row follows
  REQUIRE_MESSAGE(caught_up(connector, 2), p.log());
  CHECK(count_of("SELECT count(*) FROM \"" + s + "\".orders WHERE id = 2 AND w = 7") == 1);
  REQUIRE_MESSAGE(running_again(port), get(port, "/status"));
  CHECK(degraded_gauge(port, "postgres statements") == 0);
  CHECK(p.stop() == 0);
}

TEST_CASE("a statement cancelled at every attempt waits DEGRADED, and converges once it runs") {
  const std::string topic = unique_name("cdc_slow_trigger");
  const std::string connector = unique_name("slow_trigger");
  const std::string s = unique_name("slowtrg");
  create_topic(topic, 1);
  produce(topic, {datastream_record(s, "items", 1, 101, ",\"v\":1")});
  const uint16_t port = free_port();
  sluice_process p(
      with_metrics_listen(basic_config(connector, topic, "datastream",
                                       quick_retries + "postgres.statement.timeout: 1s\n", 100),
                          port));
  REQUIRE_MESSAGE(caught_up(connector, 1), p.log());

  // A trigger that sleeps past the statement timeout while the brake is on.
  execute("CREATE TABLE \"" + s + "\".brake (on_ boolean)");
  execute("INSERT INTO \"" + s + "\".brake VALUES (true)");
  execute("CREATE FUNCTION \"" + s + "\".slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN " +
          "IF EXISTS (SELECT 1 FROM \"" + s + "\".brake) THEN PERFORM pg_sleep(3); END IF; " +
          "RETURN NEW; END $$");
  execute("CREATE TRIGGER slow BEFORE INSERT OR UPDATE ON \"" + s + "\".items FOR EACH ROW " +
          "EXECUTE FUNCTION \"" + s + "\".slow()");

  produce(topic, {datastream_record(s, "items", 2, 102, ",\"v\":2"),
                  datastream_record(s, "items", 1, 103, ",\"v\":3")});
  std::string status;
  REQUIRE_MESSAGE(degraded_with(port, {"57014", "lane-"}, status), status << "\n" << p.log());
  CHECK(degraded_gauge(port, "postgres statements") == 1);
  // Nothing committed meanwhile: the batch is whole or not at all.
  CHECK(count_of("SELECT count(*) FROM \"" + s + "\".items") == 1);
  std::this_thread::sleep_for(3s);
  CHECK(p.running());
  CHECK(get(port, "/status").find("FAILED") == std::string::npos);

  execute("DELETE FROM \"" + s + "\".brake");
  REQUIRE_MESSAGE(caught_up(connector, 3), p.log());
  CHECK(count_of("SELECT count(*) FROM \"" + s + "\".items") == 2);
  CHECK(count_of("SELECT v FROM \"" + s + "\".items WHERE id = 1") == 3);
  REQUIRE_MESSAGE(running_again(port), get(port, "/status"));
  CHECK(degraded_gauge(port, "postgres statements") == 0);
  CHECK(p.stop() == 0);
}

TEST_CASE("a stop while a stalled statement holds every queue full ends at once, nothing lost") {
  const std::string topic = unique_name("cdc_stall_stop");
  const std::string connector = unique_name("stall_stop");
  const std::string s = unique_name("stallstop");
  create_topic(topic, 1);
  produce(topic, {datastream_record(s, "items", 1, 101, ",\"v\":1")});
  const std::string config = basic_config(connector, topic, "datastream",
                                          quick_retries + "postgres.statement.timeout: 1s\n", 1);
  const uint16_t port = free_port();
  sluice_process p(with_metrics_listen(config, port));
  REQUIRE_MESSAGE(caught_up(connector, 1), p.log());
  execute("CREATE TABLE \"" + s + "\".brake (on_ boolean)");
  execute("INSERT INTO \"" + s + "\".brake VALUES (true)");
  execute("CREATE FUNCTION \"" + s + "\".slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN " +
          "IF EXISTS (SELECT 1 FROM \"" + s + "\".brake) THEN PERFORM pg_sleep(3); END IF; " +
          "RETURN NEW; END $$");
  execute("CREATE TRIGGER slow BEFORE INSERT OR UPDATE ON \"" + s + "\".items FOR EACH ROW " +
          "EXECUTE FUNCTION \"" + s + "\".slow()");
  // One change a batch: the stalled lane's batch, its queue, the prepare stage and its queue
  // fill up, and the consumer holds the next batch, waiting for room.
  std::vector<kafka_record> more;
  for (int i = 2; i <= 12; ++i)
    more.push_back(datastream_record(s, "items", i, 100 + i, ",\"v\":2"));
  produce(topic, more);
  std::string status;
  REQUIRE_MESSAGE(degraded_with(port, {"57014", "lane-"}, status), status << "\n" << p.log());
  std::this_thread::sleep_for(2s);  // the held batch waits for room, the partition paused
  // The drain gives up what cannot commit instead of waiting for room that never comes.
  CHECK(p.stop(30) == 0);

  execute("DELETE FROM \"" + s + "\".brake");
  sluice_process again(config);
  REQUIRE_MESSAGE(caught_up(connector, 12), again.log());
  CHECK(count_of("SELECT count(*) FROM \"" + s + "\".items") == 12);
  CHECK(again.stop() == 0);
}

TEST_CASE("a dead-letter topic that cannot be written holds its batch DEGRADED, then delivers") {
  const std::string topic = unique_name("cdc_dlq_down");
  const std::string dlq = unique_name("cdc_dlq_down_letters");  // not created yet
  const std::string connector = unique_name("dlq_down");
  const std::string table = unique_name("dlq_rows");
  create_topic(topic, 1);
  std::vector<kafka_record> records = datastream_rows(table, 1, 2);
  records.push_back({"poison", std::string("{not json"), 0});  // offset 2
  for (const kafka_record& r : datastream_rows(table, 3, 2))
    records.push_back(r);
  produce(topic, records);

  const uint16_t port = free_port();
  // Each send gives up after 3 s (message.timeout.ms; 60 s by default, after which the
  // connector used to go FAILED for good).
  std::string cfg = with_metrics_listen(
      basic_config(connector, topic, "datastream",
                   quick_retries + "errors.deadletterqueue.topic.name: " + dlq + "\n", 100),
      port);
  cfg.replace(cfg.find("kafka:\n"), 7, "kafka:\n  message.timeout.ms: 3000\n");
  sluice_process p(cfg);

  std::string status;
  REQUIRE_MESSAGE(degraded_with(port, {"dead letter queue " + dlq}, status), status << "\n"
                                                                                    << p.log());
  CHECK(degraded_gauge(port, "dead-letter queue") == 1);
  // Several sends past the one that used to be fatal; nothing of the batch committed.
  std::this_thread::sleep_for(15s);
  CHECK(p.running());
  status = get(port, "/status");
  CHECK_MESSAGE(status.find("\"DEGRADED\"") != std::string::npos, status);
  CHECK(count_of("SELECT count(*) FROM sluice.offsets WHERE connector = '" + connector +
                 "' AND next_offset > 0") == 0);
  CHECK(count_of("SELECT count(*) FROM sluice.dead_letters WHERE connector = '" + connector +
                 "'") == 0);

  create_topic(dlq, 1);
  REQUIRE_MESSAGE(caught_up(connector, 5), p.log());
  CHECK(count_of("SELECT count(*) FROM public.\"" + table + "\"") == 4);
  CHECK(count_of("SELECT count(*) FROM sluice.dead_letters WHERE connector = '" + connector +
                 "'") == 1);
  const std::vector<read_message> letters = read_topic(dlq, 1);
  REQUIRE(!letters.empty());
  CHECK(letters.front().key == std::optional<std::string>("poison"));
  REQUIRE_MESSAGE(running_again(port), get(port, "/status"));
  CHECK(degraded_gauge(port, "dead-letter queue") == 0);
  CHECK(p.stop() == 0);
}

TEST_CASE("a partition fenced while the group still assigns it here shows, then is claimed again") {
  const std::string topic = unique_name("cdc_fenced");
  const std::string connector = unique_name("fenced");
  const std::string table = unique_name("fenced_rows");
  create_topic(topic, 1);
  produce(topic, datastream_rows(table, 1, 2));
  const uint16_t port = free_port();
  sluice_process p(
      with_metrics_listen(basic_config(connector, topic, "datastream", quick_retries, 100), port));
  REQUIRE_MESSAGE(caught_up(connector, 2), p.log());

  // Another owner's claim (what a member that took the partition over writes), behind the
  // group's back: this member still has the partition assigned.
  const int64_t ours =
      count_of("SELECT owner_epoch FROM sluice.offsets WHERE connector = '" + connector + "'");
  execute("UPDATE sluice.offsets SET owner_epoch = owner_epoch + 5 WHERE connector = '" +
          connector + "'");
  produce(topic, datastream_rows(table, 3, 2));
  std::string status;
  REQUIRE_MESSAGE(degraded_with(port,
                                {topic + "[0] fenced", "epoch " + std::to_string(ours + 5),
                                 "ours: " + std::to_string(ours)},
                                status),
                  status << "\n"
                         << p.log());
  CHECK(metric_sample(get(port, "/metrics"), "sluice_fenced_partitions") == 1);
  // Its lag keeps being shown (the two messages not applied), not frozen where it was.
  CHECK(wait_until(
      [&] {
        return metric_sample(get(port, "/metrics"),
                             "sluice_consumer_lag_messages{partition=\"0\","
                             "topic=\"" +
                                 topic + "\"}") == 2;
      },
      5s));
  // Claimed again (a new epoch above the other owner's), then consumed from the stored offset.
  REQUIRE_MESSAGE(caught_up(connector, 4, std::chrono::seconds(60)), p.log());
  CHECK(count_of("SELECT count(*) FROM public.\"" + table + "\"") == 4);
  CHECK(count_of("SELECT owner_epoch FROM sluice.offsets WHERE connector = '" + connector + "'") >
        ours + 5);
  REQUIRE_MESSAGE(running_again(port), get(port, "/status"));
  CHECK(metric_sample(get(port, "/metrics"), "sluice_fenced_partitions") == 0);
  CHECK(p.stop() == 0);
}

}  // namespace sluice::testing
