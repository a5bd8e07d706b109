// End to end through the real broker and PostgreSQL: messages produced with a real Kafka
// client, `sluice run` as a child process, assertions on the replica's rows.

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "integration/support/datastream_events.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

kafka_record keyed(int64_t id, const datastream_event& e) {
  return {std::to_string(id), e.json(), -1};
}

datastream_event customer(const std::string& table, const std::string& op, uint64_t lsn, int64_t id,
                          const std::string& name) {
  datastream_event e;
  e.table = table;
  e.change_type = op;
  e.lsn = lsn;
  e.payload_json = "\"id\":" + std::to_string(id) + ",\"name\":\"" + name +
                   "\",\"balance\":12345678901234567890.125,\"vip\":" + (id % 2 ? "true" : "false");
  return e;
}

}  // namespace

TEST_CASE("dead letters reach the dead-letter topic with their bytes, reason and origin") {
  const std::string topic = unique_name("cdc_dlq");
  const std::string dlq = unique_name("cdc_dlq_letters");
  const std::string table = unique_name("dlq_rows");
  const std::string connector = unique_name("dlq");
  create_topic(topic, 1);
  create_topic(dlq, 1);
  std::vector<kafka_record> records;
  for (int64_t id = 1; id <= 3; ++id) {
    records.push_back(keyed(id, customer(table, "INSERT", 100 + id, id, "c" + std::to_string(id))));
  }
  records.push_back({"p", "{not json", 0});  // cannot be decoded: dead-lettered before apply
  // Decodes, but PostgreSQL refuses the value (balance is numeric): dead-lettered by the apply
  // itself, inside the batch transaction.
  datastream_event refused = customer(table, "INSERT", 109, 9, "refused");
  refused.payload_json = R"("id":9,"name":"refused","balance":"not a number","vip":true)";
  records.push_back(keyed(9, refused));
  produce(topic, records);

  sluice_process p(basic_config(connector, topic, "datastream",
                                "errors.deadletterqueue.topic.name: " + dlq +
                                    "\ntables:\n  public." + table +
                                    ":\n    column.types: {balance: numeric}\n"));
  REQUIRE_MESSAGE(caught_up(connector, static_cast<int64_t>(records.size())), p.log());
  CHECK(query("SELECT id FROM public.\"" + table + "\"").size() == 3);
  const std::vector<read_message> letters = read_topic(dlq, 2);
  REQUIRE_MESSAGE(letters.size() == 2, p.log());
  CHECK(query("SELECT 1 FROM sluice.dead_letters WHERE topic = '" + topic + "'").size() == 2);
  std::map<std::string, read_message> by_offset;
  for (const read_message& m : letters) {
    REQUIRE(m.headers.contains("__sluice.offset"));
    CHECK(m.headers.at("__sluice.topic") == topic);
    CHECK(m.headers.at("__sluice.partition") == "0");
    CHECK_FALSE(m.headers.at("__sluice.reason").empty());
    // Kafka Connect's DLQ headers too, so Connect tooling reads the topic.
    CHECK(m.headers.at("__connect.errors.topic") == topic);
    CHECK(m.headers.at("__connect.errors.partition") == "0");
    CHECK(m.headers.at("__connect.errors.offset") == m.headers.at("__sluice.offset"));
    CHECK(m.headers.at("__connect.errors.connector.name") == connector);
    CHECK(m.headers.at("__connect.errors.exception.message") == m.headers.at("__sluice.reason"));
    CHECK_FALSE(m.headers.contains("__sluice.truncated"));
    by_offset[m.headers.at("__sluice.offset")] = m;
  }
  REQUIRE(by_offset.contains("3"));
  CHECK(by_offset["3"].key == std::optional<std::string>("p"));
  CHECK(by_offset["3"].value == std::optional<std::string>("{not json"));
  CHECK(by_offset["3"].headers["__sluice.reason"].find("json") != std::string::npos);
  REQUIRE(by_offset.contains("4"));
  // Refused by the apply: the merged row sluice tried to write, keyed by its key columns, with
  // the origin of the newest message that made it.
  CHECK(by_offset["4"].key == std::optional<std::string>(R"({"id":9})"));
  REQUIRE(by_offset["4"].value);
  CHECK(by_offset["4"].value->find(R"("balance":"not a number")") != std::string::npos);
  CHECK(by_offset["4"].headers["__sluice.reason"].find("numeric") != std::string::npos);
  CHECK(p.stop() == 0);
}

TEST_CASE(
    "inserts, updates and deletes replicate; duplicates and late older changes change nothing") {
  const std::string topic = unique_name("cdc_basic");
  const std::string table = unique_name("customers");
  const std::string connector = unique_name("basic");
  create_topic(topic, 3);

  std::vector<kafka_record> records;
  for (int64_t id = 1; id <= 6; ++id) {
    records.push_back(keyed(id, customer(table, "INSERT", 100 + id, id, "c" + std::to_string(id))));
  }
  auto update2 = customer(table, "UPDATE", 200, 2, "two-v2");
  records.push_back(keyed(2, update2));
  records.push_back(keyed(2, update2));                                         // duplicate
  records.push_back(keyed(3, customer(table, "DELETE", 201, 3, "c3")));         // delete
  records.push_back(keyed(4, customer(table, "UPDATE", 300, 4, "four-new")));   // newer first,
  records.push_back(keyed(4, customer(table, "UPDATE", 250, 4, "four-old")));   // older after
  records.push_back(keyed(5, customer(table, "DELETE", 400, 5, "c5")));         // delete, then
  records.push_back(keyed(5, customer(table, "UPDATE", 350, 5, "five-late")));  // a late update
  records.push_back({"6", "{not json", -1});                                    // poison
  produce(topic, records);

  sluice_process p(basic_config(connector, topic));
  REQUIRE_MESSAGE(caught_up(connector, static_cast<int64_t>(records.size())), p.log());

  auto rows = query("SELECT id, name, balance, vip FROM public.\"" + table + "\" ORDER BY id");
  std::map<std::string, std::string> by_id;
  for (auto& r : rows)
    by_id[str(r[0])] = str(r[1]);
  CHECK(by_id.size() == 4);
  CHECK(by_id["1"] == "c1");
  CHECK(by_id["2"] == "two-v2");
  CHECK_FALSE(by_id.contains("3"));
  CHECK(by_id["4"] == "four-new");
  CHECK_FALSE(by_id.contains("5"));
  CHECK(by_id["6"] == "c6");
  CHECK(str(rows.at(0).at(2)) == "12345678901234567890.125");  // exact, never a double
  CHECK(str(rows.at(0).at(3)) == "t");

  auto dead = query(
      "SELECT reason, convert_from(value, 'UTF8'), partition, kafka_offset FROM "
      "sluice.dead_letters WHERE topic = '" +
      topic + "'");
  REQUIRE(dead.size() == 1);
  CHECK(str(dead[0][1]) == "{not json");
  CHECK(str(dead[0][0]).find("json") != std::string::npos);

  CHECK(p.stop() == 0);
}

TEST_CASE("offsets are read back from PostgreSQL on restart: nothing is applied twice or lost") {
  const std::string topic = unique_name("cdc_restart");
  const std::string table = unique_name("accounts");
  const std::string connector = unique_name("restart");
  create_topic(topic, 2);

  std::vector<kafka_record> first;
  for (int64_t id = 1; id <= 10; ++id)
    first.push_back(keyed(id, customer(table, "INSERT", id, id, "v1")));
  produce(topic, first);
  {
    sluice_process p(basic_config(connector, topic));
    REQUIRE_MESSAGE(caught_up(connector, 10), p.log());
    CHECK(p.stop() == 0);
  }
  // While sluice is down: updates. The restarted instance must start after the first ten.
  std::vector<kafka_record> second;
  for (int64_t id = 1; id <= 10; ++id)
    second.push_back(keyed(id, customer(table, "UPDATE", 100 + id, id, "v2")));
  produce(topic, second);
  sluice_process p(basic_config(connector, topic));
  REQUIRE_MESSAGE(caught_up(connector, 20), p.log());
  CHECK(p.stop() == 0);

  auto rows =
      query("SELECT count(*), count(*) FILTER (WHERE name = 'v2') FROM public.\"" + table + "\"");
  CHECK(str(rows[0][0]) == "10");
  CHECK(str(rows[0][1]) == "10");
  CHECK(committed_messages(connector) == 20);
  CHECK(p.log().find("starting at 10") == std::string::npos);  // offsets came from PostgreSQL

  // `sluice status` shows each partition's committed offset, the high watermark and no lag.
  const command_result st =
      run_sluice({"status", "-c", write_run_file("status.yaml", basic_config(connector, topic))});
  CHECK_MESSAGE(st.exit_code == 0, st.err);
  CHECK(st.out.find("connector " + connector) != std::string::npos);
  int64_t committed_total = 0;
  int lines = 0;
  std::istringstream in(st.out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(topic, 0) != 0) continue;
    std::istringstream fields(line);
    std::string name, partition, committed, high, lag;
    fields >> name >> partition >> committed >> high >> lag;
    CHECK(committed == high);
    CHECK(lag == "0");
    committed_total += std::stoll(committed);
    ++lines;
  }
  CHECK(lines == 2);
  CHECK(committed_total == 20);
  // Per table: the newest applied source timestamp (the updates' LSNs 101..110 are their
  // source timestamps' milliseconds past 2026-01-01).
  const std::string table_line = "public." + table + " ";
  const size_t at = st.out.find(table_line);
  REQUIRE_MESSAGE(at != std::string::npos, st.out);
  CHECK(st.out.substr(at, st.out.find('\n', at) - at).find("2026-01-01T00:00:00.110000Z") !=
        std::string::npos);

  // The same as one JSON object, for scripts.
  const command_result js = run_sluice(
      {"status", "-c", write_run_file("status.yaml", basic_config(connector, topic)), "--json"});
  CHECK_MESSAGE(js.exit_code == 0, js.err);
  CHECK(js.out.starts_with("{\"connector\":\"" + connector + "\",\"kafka_reachable\":true,"));
  CHECK(contains(js.out, "\"topic\":\"" + topic + "\",\"partition\":0,\"committed\":"));
  CHECK(contains(js.out, "\"lag\":0,"));
  CHECK(contains(js.out, "\"table\":\"public." + table +
                             "\",\"newest_source_timestamp\":\"2026-01-01T00:00:00.110000Z\""));
  CHECK(js.out.ends_with("]}\n"));

  // Kafka away: what PostgreSQL holds is shown, and the exit code says Kafka did not answer,
  // also for a connector with no partition claimed yet.
  for (const std::string& name : {connector, unique_name("never_ran")}) {
    std::string away = basic_config(name, topic);
    away.replace(away.find(kafka_bootstrap()), kafka_bootstrap().size(), "127.0.0.1:1");
    const command_result down = run_sluice({"status", "-c", write_run_file("away.yaml", away)});
    CHECK(down.exit_code == 3);
    CHECK(contains(down.out, "connector " + name));
    CHECK(contains(down.err, "Kafka did not answer"));
  }
}

TEST_CASE("a running sluice expires tombstones past tombstone.retention, younger ones guard on") {
  const std::string topic = unique_name("cdc_expiry");
  const std::string table = unique_name("expiring");
  const std::string connector = unique_name("expiry");
  create_topic(topic, 1);
  produce(topic, {keyed(1, customer(table, "INSERT", 101, 1, "one")),
                  keyed(2, customer(table, "INSERT", 102, 2, "two")),
                  keyed(1, customer(table, "DELETE", 201, 1, "one")),
                  keyed(2, customer(table, "DELETE", 202, 2, "two"))});
  const std::string tombstones =
      "SELECT key_json->>'id' FROM sluice.tombstones WHERE target_table = '" + table + "'";
  {
    sluice_process p(basic_config(connector, topic));
    REQUIRE_MESSAGE(caught_up(connector, 4), p.log());
    CHECK(p.stop() == 0);
  }
  REQUIRE(query(tombstones).size() == 2);
  // Key 1's delete is two days old, past the default retention of 24 h; key 2's is fresh.
  execute(
      "UPDATE sluice.tombstones SET deleted_at = now() - interval '2 days' WHERE "
      "target_table = '" +
      table + "' AND key_json->>'id' = '1'");

  // A late update of key 2, older than its delete: its young tombstone still refuses it.
  produce(topic, {keyed(2, customer(table, "UPDATE", 150, 2, "late"))});
  sluice_process p(basic_config(connector, topic));
  REQUIRE_MESSAGE(caught_up(connector, 5), p.log());
  CHECK_MESSAGE(wait_until([&] { return query(tombstones).size() == 1; }, std::chrono::seconds(30)),
                p.log());
  const auto left = query(tombstones);
  REQUIRE(left.size() == 1);
  CHECK(str(left[0][0]) == "2");
  CHECK(query("SELECT 1 FROM public.\"" + table + "\"").empty());
  CHECK(p.stop() == 0);
  CHECK(p.log().find("expired 1 tombstone(s)") != std::string::npos);
}

TEST_CASE("kill -9 in the middle of a stream neither loses nor double-applies anything") {
  const std::string topic = unique_name("cdc_kill");
  const std::string table = unique_name("ledger");
  const std::string connector = unique_name("kill");
  create_topic(topic, 3);

  // A producer keeps writing versions of every key while sluice is killed -9 three times, so
  // each kill lands while sluice is consuming and applying.
  constexpr int keys = 200;
  constexpr int versions = 40;
  const int64_t total = int64_t{keys} * versions;
  std::atomic<bool> producing{true};
  std::thread producer([&] {
    uint64_t lsn = 1000;
    for (int v = 1; v <= versions; ++v) {
      std::vector<kafka_record> wave;
      for (int id = 1; id <= keys; ++id) {
        wave.push_back(keyed(
            id, customer(table, v == 1 ? "INSERT" : "UPDATE", ++lsn, id, "v" + std::to_string(v))));
      }
      produce(topic, wave);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    producing = false;
  });
  struct join_guard {
    std::thread& t;
    ~join_guard() {
      if (t.joinable()) t.join();
    }
  } joiner{producer};

  constexpr int batch_size = 100;
  int kills_mid_stream = 0;
  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < 3; ++round) {
    sluice_process p(basic_config(connector, topic, "datastream", "", batch_size));
    if (round == 0) {
      // Each row write is audited by a trigger; a write applied twice would show as two audit
      // rows for one (id, csn). sluice creates the table, so the trigger follows it.
      REQUIRE_MESSAGE(
          wait_until(
              [&] {
                return !query("SELECT 1 FROM pg_tables WHERE tablename = '" + table + "'").empty();
              },
              std::chrono::seconds(60)),
          p.log());
      execute("CREATE TABLE IF NOT EXISTS \"audit_" + table +
              "\" (id numeric, csn bytea); "
              "CREATE OR REPLACE FUNCTION \"audit_fn_" +
              table +
              "\"() RETURNS trigger AS $$ BEGIN "
              "INSERT INTO \"audit_" +
              table +
              "\" VALUES (NEW.id, NEW._sluice_csn); RETURN NEW; END $$ "
              "LANGUAGE plpgsql; CREATE TRIGGER audit AFTER INSERT OR UPDATE ON public.\"" +
              table + "\" FOR EACH ROW EXECUTE FUNCTION \"audit_fn_" + table + "\"()");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300 + rng() % 700));
    const bool mid_stream = producing.load() && committed_messages(connector) < total;
    p.kill9();
    if (mid_stream) ++kills_mid_stream;
  }
  CHECK(kills_mid_stream >= 2);
  producer.join();

  sluice_process p(basic_config(connector, topic, "datastream", "", batch_size));
  REQUIRE_MESSAGE(caught_up(connector, total, std::chrono::seconds(120)), p.log());
  CHECK(p.stop() == 0);

  auto rows = query("SELECT count(*), count(*) FILTER (WHERE name = 'v" + std::to_string(versions) +
                    "') FROM public.\"" + table + "\"");
  CHECK(str(rows[0][0]) == std::to_string(keys));
  CHECK(str(rows[0][1]) == std::to_string(keys));
  auto twice = query("SELECT id, csn, count(*) FROM \"audit_" + table +
                     "\" GROUP BY id, csn HAVING count(*) > 1");
  CHECK(twice.empty());
  CHECK(committed_messages(connector) == total);
}

}  // namespace sluice::testing

namespace sluice::testing {
namespace {

size_t occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

}  // namespace

TEST_CASE("a PostgreSQL stall longer than max.poll.interval.ms neither rebalances nor loses data") {
  const std::string topic = unique_name("cdc_stall");
  const std::string table = unique_name("stalled");
  const std::string connector = unique_name("stall");
  create_topic(topic, 2);

  std::vector<kafka_record> first;
  for (int64_t id = 1; id <= 10; ++id)
    first.push_back(keyed(id, customer(table, "INSERT", id, id, "v0")));
  produce(topic, first);
  // Small batches, so the queues between the stages fill long before the stall ends; a poll
  // interval shorter than the stall, so a consumer thread blocked on a full queue would be
  // thrown out of the group by librdkafka (MAXPOLL) and its partitions reassigned.
  std::string yaml = basic_config(connector, topic, "datastream", "", 100);
  const std::string anchor = "  heartbeat.interval.ms: 500\n";
  yaml.replace(yaml.find(anchor), anchor.size(), anchor + "  max.poll.interval.ms: 7000\n");
  sluice_process p(yaml);
  REQUIRE_MESSAGE(caught_up(connector, 10), p.log());

  // Another session holds the table for 15 s; meanwhile 3,000 updates arrive.
  std::thread stall([&] {
    execute("LOCK TABLE public.\"" + table + "\" IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(15)");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  constexpr int rounds = 30;
  for (int round = 1; round <= rounds; ++round) {
    std::vector<kafka_record> updates;
    for (int64_t id = 1; id <= 10; ++id) {
      updates.push_back(
          keyed(id, customer(table, "UPDATE", 1000 * round + id, id, "v" + std::to_string(round))));
    }
    for (int copy = 0; copy < 10; ++copy)  // duplicates: 100 messages a round
      produce(topic, updates);
  }
  stall.join();

  const int64_t total = 10 + int64_t{rounds} * 100;
  REQUIRE_MESSAGE(caught_up(connector, total, std::chrono::seconds(90)), p.log());
  auto rows = query("SELECT count(*), count(*) FILTER (WHERE name = 'v" + std::to_string(rounds) +
                    "') FROM public.\"" + table + "\"");
  CHECK(str(rows[0][0]) == "10");
  CHECK(str(rows[0][1]) == "10");
  // Each partition was claimed once: the member never left the group.
  const std::string log = p.log();
  CHECK_MESSAGE(occurrences(log, "claimed " + topic) == 2, log);
  CHECK_MESSAGE(occurrences(log, "MAXPOLL") == 0, log);
  CHECK(p.stop() == 0);
}

}  // namespace sluice::testing
