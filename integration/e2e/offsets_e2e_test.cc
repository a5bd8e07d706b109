// `sluice offsets` against the real broker and PostgreSQL (issue 15): a reset is refused
// while a sluice of the connector runs; --dry-run changes nothing; a reset to a time moves
// sluice's offsets to the broker's offsets-for-times, bumps the owner epochs and makes the
// Kafka group's copy follow; and the next run re-applies from there and converges.

#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "integration/support/datastream_events.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

struct partition_offsets {
  int64_t sluice = -1, group = -1, high = -1, epoch = -1;
};

// `offsets show --json`, by partition.
std::map<int, partition_offsets> show(const std::string& config_path) {
  const command_result r = run_sluice({"offsets", "show", "-c", config_path, "--json"}, "", 60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.out << r.err);
  std::map<int, partition_offsets> out;
  const std::regex line(
      R"re("partition":(\d+),"sluice_offset":(\d+|null),"group_offset":(\d+|null),"low_watermark":\d+,"high_watermark":(\d+),"lag":-?\d+,"owner_epoch":(\d+))re");
  const auto number = [](const std::string& s) { return s == "null" ? -1 : std::stoll(s); };
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), line);
       it != std::sregex_iterator(); ++it) {
    out[std::stoi((*it)[1])] = {number((*it)[2]), number((*it)[3]), number((*it)[4]),
                                number((*it)[5])};
  }
  return out;
}

int64_t rows_in(const std::string& table) {
  return std::stoll(*query("SELECT count(*) FROM public." + table)[0][0]);
}

}  // namespace

TEST_CASE("an offsets reset to a timestamp, then a run, converges; refused while sluice runs") {
  const std::string topic = unique_name("offsets_reset");
  const std::string table = unique_name("offsets_t");
  const std::string name = unique_name("offsets");
  create_topic(topic, 2);
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const int64_t early = now_ms - 3'600'000, late = now_ms - 60'000;
  std::vector<kafka_record> first = datastream_rows(table, 1, 20);
  std::vector<kafka_record> second = datastream_rows(table, 21, 20);
  for (size_t i = 0; i < first.size(); ++i) {
    first[i].timestamp_ms = early;
    second[i].timestamp_ms = late;
    first[i].partition = second[i].partition = static_cast<int>(i % 2);  // 10 + 10 in each
  }
  produce(topic, first);
  produce(topic, second);

  const std::string config = basic_config(name, topic);
  const std::string config_path = write_run_file("offsets_config", config);
  {
    sluice_process sluice(config, "offsets_first_run");
    REQUIRE_MESSAGE(caught_up(name, 40, std::chrono::seconds(90)), sluice.log());
    const command_result refused =
        run_sluice({"offsets", "reset", "-c", config_path, "--to-earliest"}, "", 60);
    INFO(refused.out << refused.err);
    CHECK(refused.exit_code == 1);
    CHECK(contains(refused.err, "live member"));
    CHECK(sluice.stop() == 0);
  }
  REQUIRE(rows_in(table) == 40);

  // The replica loses the late rows (restored from a backup taken in between, say).
  execute("DELETE FROM public." + table + " WHERE id > 20");
  const std::map<int, partition_offsets> before = show(config_path);
  REQUIRE(before.size() == 2);
  int64_t committed = 0;
  for (const auto& [p, o] : before)
    committed += o.sluice;
  CHECK(committed == 40);

  const std::string middle = std::to_string((early + late) / 2);
  const command_result dry = run_sluice(
      {"offsets", "reset", "-c", config_path, "--to-datetime", middle, "--dry-run"}, "", 60);
  INFO(dry.out << dry.err);
  CHECK(dry.exit_code == 0);
  CHECK(contains(dry.out, "dry run: nothing changed"));
  CHECK(contains(dry.out, "re-applies"));
  const std::map<int, partition_offsets> after_dry = show(config_path);
  for (const auto& [p, o] : before) {
    CHECK(after_dry.at(p).sluice == o.sluice);
    CHECK(after_dry.at(p).epoch == o.epoch);
  }

  const command_result reset =
      run_sluice({"offsets", "reset", "-c", config_path, "--to-datetime", middle}, "", 60);
  INFO(reset.out << reset.err);
  REQUIRE(reset.exit_code == 0);
  CHECK(contains(reset.out, "reset 2 partition(s)"));
  const std::map<int, partition_offsets> after = show(config_path);
  for (const auto& [p, o] : after) {
    CHECK(o.epoch == before.at(p).epoch + 1);  // a zombie of the first run cannot write
    CHECK(o.group == o.sluice);                // the Kafka group's copy follows
    CHECK(o.high - o.sluice == 10);            // exactly the late messages of the partition
  }

  sluice_process second_run(config, "offsets_second_run");
  CHECK(wait_until([&] { return rows_in(table) == 40; }, std::chrono::seconds(90)));
  CHECK(caught_up(name, 40, std::chrono::seconds(30)));
  CHECK(second_run.stop() == 0);
  CHECK(query("SELECT count(*) FROM public." + table + " WHERE v = id")[0][0] == "40");
}

TEST_CASE("offsets reset refuses two targets and a topic the connector does not read") {
  const std::string topic = unique_name("offsets_usage");
  create_topic(topic, 1);
  const std::string config_path =
      write_run_file("offsets_usage", basic_config(unique_name("offsets"), topic));
  CHECK(run_sluice({"offsets", "reset", "-c", config_path, "--to-earliest", "--to-latest"}, "", 30)
            .exit_code == 2);
  CHECK(run_sluice({"offsets", "reset", "-c", config_path}, "", 30).exit_code == 2);
  const command_result other = run_sluice(
      {"offsets", "reset", "-c", config_path, "--to-earliest", "--topic", "not_mine"}, "", 30);
  CHECK(other.exit_code == 2);
  CHECK(contains(other.err, "not one this connector consumes"));
  const command_result bad_time =
      run_sluice({"offsets", "reset", "-c", config_path, "--to-datetime", "yesterday"}, "", 30);
  CHECK(bad_time.exit_code == 2);
}

TEST_CASE("offsets show: a topic Kafka does not list, and Kafka away, still show PostgreSQL's") {
  const std::string topic = unique_name("offsets_show");
  const std::string name = unique_name("offsets_show");
  create_topic(topic, 1);
  produce(topic, datastream_rows(unique_name("shown"), 1, 3));
  {
    sluice_process p(basic_config(name, topic));
    REQUIRE_MESSAGE(caught_up(name, 3), p.log());
    CHECK(p.stop() == 0);
  }
  // A configured topic the brokers do not know (a set-up fed by `replay`, or a topic not
  // created yet) used to make librdkafka refuse an empty partition list.
  const std::string missing = unique_name("never_created");
  std::string both = basic_config(name, topic);
  both.replace(both.find("topics: [" + topic + "]"), topic.size() + 10,
               "topics: [" + topic + ", " + missing + "]");
  const command_result shown =
      run_sluice({"offsets", "show", "-c", write_run_file("offsets_both", both)}, "", 60);
  CHECK_MESSAGE(shown.exit_code == 0, shown.out << shown.err);
  CHECK(contains(shown.out, topic));
  const command_result only_missing = run_sluice(
      {"offsets", "show", "-c",
       write_run_file("offsets_missing", basic_config(unique_name("offsets_none"), missing))},
      "", 60);
  CHECK_MESSAGE(only_missing.exit_code == 0, only_missing.out << only_missing.err);
  CHECK(contains(only_missing.out, "(no partition)"));

  // Kafka away: PostgreSQL's offsets without the watermarks, and exit 3.
  std::string away = basic_config(name, topic);
  away.replace(away.find(kafka_bootstrap()), kafka_bootstrap().size(), "127.0.0.1:1");
  const command_result down =
      run_sluice({"offsets", "show", "-c", write_run_file("offsets_away", away), "--json"}, "", 60);
  CHECK(down.exit_code == 3);
  CHECK(contains(down.out, "\"topic\":\"" + topic +
                               "\",\"partition\":0,\"sluice_offset\":3,\"group_offset\":null,"
                               "\"low_watermark\":null,\"high_watermark\":null,\"lag\":null"));
  CHECK(contains(down.err, "Kafka did not answer"));
}

}  // namespace sluice::testing
