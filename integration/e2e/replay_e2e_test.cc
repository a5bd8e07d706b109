// `sluice replay` and `sluice decode --kafka-json` end to end, with PostgreSQL only: the
// input is what `kcat -C -J` prints, written to a file; sluice runs as a child process;
// assertions on the replica's rows, the dead letters, sluice.offsets and what it printed.

#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "integration/support/datastream_events.h"
#include "integration/support/kcat_lines.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/schemas/dsql_records.h"

namespace sluice::testing {
namespace {

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

// A config for replay: Kafka is never reached, but `run`'s config is what users pass.
std::string replay_config(const std::string& connector, const std::string& topic,
                          const std::string& tolerance, int batch_size) {
  return "name: " + connector +
         "\n"
         "kafka:\n"
         "  bootstrap.servers: 127.0.0.1:1\n"
         "topics: [" +
         topic +
         "]\n"
         "format: datastream\n"
         "postgres:\n"
         "  dsn: \"" +
         postgres_dsn() +
         "\"\n"
         "batch.size: " +
         std::to_string(batch_size) +
         "\n"
         "errors.tolerance: " +
         tolerance +
         "\n"
         "metrics:\n"
         "  listen: \"\"\n";
}

int64_t offsets_rows(const std::string& connector) {
  return std::stoll(str(
      query("SELECT count(*) FROM sluice.offsets WHERE connector = '" + connector + "'")[0][0]));
}

// The value printed after a summary label ("  stale         2" -> "2").
std::string summary_value(const std::string& out, const std::string& label) {
  const std::string head = "  " + label;
  const size_t at = out.find("\n" + head);
  if (at == std::string::npos) return "<missing " + label + ">";
  const size_t begin = out.find_first_not_of(' ', at + 1 + head.size());
  return out.substr(begin, out.find('\n', begin) - begin);
}

}  // namespace

TEST_CASE(
    "replay applies a kcat file like run would: duplicates, late older changes and deletes; "
    "poison to the dead letters; no offsets") {
  const std::string topic = unique_name("cdc_replay");
  const std::string table = unique_name("replayed");
  const std::string connector = unique_name("replay");

  std::vector<std::string> lines;
  int64_t offset = 0;
  auto add = [&](int64_t id, const datastream_event& e, const std::string& headers = "") {
    lines.push_back(kcat_line(topic, 0, offset++, std::to_string(id), e.json(), headers));
  };
  for (int64_t id = 1; id <= 6; ++id)
    add(id, customer(table, "INSERT", 100 + id, id, "c" + std::to_string(id)));
  auto update2 = customer(table, "UPDATE", 200, 2, "two-v2");
  add(2, update2, R"(["trace","t-1"])");
  add(2, update2);                                         // duplicate
  add(3, customer(table, "DELETE", 201, 3, "c3"));         // delete
  add(4, customer(table, "UPDATE", 300, 4, "four-new"));   // newer first,
  add(4, customer(table, "UPDATE", 250, 4, "four-old"));   // older after (same batch)
  add(5, customer(table, "DELETE", 400, 5, "c5"));         // delete in one batch,
  add(5, customer(table, "UPDATE", 350, 5, "five-late"));  // a late older update in the next
  lines.push_back(kcat_line(topic, 0, offset++, "6", std::string("{not json")));  // poison
  lines.push_back("");                                                            // blank
  lines.push_back("this is not a kcat record");                                   // broken line
  add(6, customer(table, "UPDATE", 500, 6, "six-v2"));
  std::string file;
  for (const auto& l : lines)
    file += l + "\n";
  const std::string path = write_run_file("replay.jsonl", file);
  const std::string config =
      write_run_file("replay.yaml", replay_config(connector, topic, "all", /*batch_size=*/4));

  const command_result r = run_sluice({"replay", "-c", config, "--file", path});
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.exit_code == 0);

  auto rows = query("SELECT id, name, balance, vip FROM public.\"" + table + "\" ORDER BY id");
  std::map<std::string, std::string> by_id;
  for (auto& row : rows)
    by_id[str(row[0])] = str(row[1]);
  CHECK(by_id.size() == 4);
  CHECK(by_id["1"] == "c1");
  CHECK(by_id["2"] == "two-v2");
  CHECK_FALSE(by_id.contains("3"));
  CHECK(by_id["4"] == "four-new");
  CHECK_FALSE(by_id.contains("5"));
  CHECK(by_id["6"] == "six-v2");
  CHECK(str(rows.at(0).at(2)) == "12345678901234567890.125");  // exact, never a double
  CHECK(str(rows.at(0).at(3)) == "t");

  // The poison message, with its origin from the line; the broken line, with its bytes.
  auto dead = query(
      "SELECT reason, topic, partition, kafka_offset, convert_from(key, 'UTF8'), "
      "convert_from(value, 'UTF8'), (extract(epoch FROM kafka_timestamp) * 1000)::bigint "
      "FROM sluice.dead_letters WHERE connector = '" +
      connector + "' ORDER BY id");
  REQUIRE(dead.size() == 2);
  CHECK(str(dead[0][0]).find("json") != std::string::npos);
  CHECK(str(dead[0][1]) == topic);
  CHECK(str(dead[0][2]) == "0");
  CHECK(str(dead[0][3]) == "13");
  CHECK(str(dead[0][4]) == "6");
  CHECK(str(dead[0][5]) == "{not json");
  CHECK(str(dead[0][6]) == "1767225600013");  // kcat's ts (ms)
  CHECK(str(dead[1][0]).find("not a kcat -J record") != std::string::npos);
  CHECK(str(dead[1][1]) == "<null>");
  CHECK(str(dead[1][5]) == "this is not a kcat record");

  CHECK(offsets_rows(connector) == 0);  // a replay moves no offsets

  // 15 messages (and a broken line) in 4 batches of 4: the duplicate and the older update of
  // 4 collapse in their batches; the late update of 5 comes in the batch after its delete
  // and the tombstone refuses it.
  CHECK(r.out.starts_with("replay summary\n"));
  CHECK(summary_value(r.out, "messages") == "15");
  CHECK(summary_value(r.out, "changes") == "14");
  CHECK(summary_value(r.out, "rows written") == "11 (9 upserted, 2 deleted)");
  CHECK(summary_value(r.out, "collapsed") == "2 (1 duplicate)");
  CHECK(summary_value(r.out, "stale") == "1");
  CHECK(summary_value(r.out, "dead letters") == "2 (1 line not a kcat -J record)");
  CHECK(summary_value(r.out, "elapsed").ends_with(" s"));
  CHECK(r.err.find(topic + "[0]@13: invalid_json") != std::string::npos);
  CHECK(r.err.find("line 16: not a kcat -J record") != std::string::npos);
  CHECK(r.err.find("\x1b[K") == std::string::npos);  // stderr is a file: no progress bar

  // Replaying the same file again changes no row.
  const command_result again = run_sluice({"replay", "-c", config, "--file", path});
  INFO("again: stdout:\n" << again.out << "\nstderr:\n" << again.err);
  CHECK(again.exit_code == 0);
  CHECK(query("SELECT id, name, balance, vip FROM public.\"" + table + "\" ORDER BY id") == rows);
  CHECK(summary_value(again.out, "rows written") == "0 (0 upserted, 0 deleted)");
  CHECK(offsets_rows(connector) == 0);
}

TEST_CASE("replay with errors.tolerance: none applies everything before a bad message and stops") {
  const std::string topic = unique_name("cdc_replay_none");
  const std::string table = unique_name("replayed_none");
  const std::string connector = unique_name("replay_none");
  std::string input;
  int64_t offset = 0;
  for (int64_t id = 1; id <= 3; ++id) {
    input += kcat_line(topic, 1, offset++, std::to_string(id),
                       customer(table, "INSERT", 10 + id, id, "v").json()) +
             "\n";
  }
  input += kcat_line(topic, 1, offset++, "4", std::string("{\"broken\":")) + "\n";
  for (int64_t id = 5; id <= 6; ++id) {
    input += kcat_line(topic, 1, offset++, std::to_string(id),
                       customer(table, "INSERT", 10 + id, id, "v").json()) +
             "\n";
  }
  const std::string config =
      write_run_file("replay_none.yaml", replay_config(connector, topic, "none", /*batch_size=*/2));

  // From stdin this time.
  const command_result r = run_sluice({"replay", "-c", config, "--file", "-"}, input);
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("stopped at " + topic + "[1]@3: invalid_json") != std::string::npos);
  auto ids = query("SELECT id FROM public.\"" + table + "\" ORDER BY id");
  REQUIRE(ids.size() == 3);
  CHECK(str(ids[2][0]) == "3");
  CHECK(query("SELECT 1 FROM sluice.dead_letters WHERE connector = '" + connector + "'").empty());
  CHECK(offsets_rows(connector) == 0);
  CHECK(summary_value(r.out, "messages") == "3");
  CHECK(summary_value(r.out, "rows written") == "3 (3 upserted, 0 deleted)");
}

TEST_CASE("replay dead-letters a line whose Kafka timestamp is more than a day ahead") {
  const std::string topic = unique_name("cdc_replay_ts");
  const std::string table = unique_name("replayed_ts");
  const std::string connector = unique_name("replay_ts");
  const int64_t year_ahead_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch() + std::chrono::hours(24 * 365))
          .count();
  std::string input;
  for (int64_t id = 1; id <= 3; ++id) {
    std::string line = kcat_line(topic, 0, id, std::to_string(id),
                                 customer(table, "INSERT", 10 + id, id, "v").json());
    if (id == 2) {
      const size_t at = line.find("\"ts\":") + 5;
      line.replace(at, line.find(',', at) - at, std::to_string(year_ahead_ms));
    }
    input += line + "\n";
  }
  const std::string config =
      write_run_file("replay_ts.yaml", replay_config(connector, topic, "all", /*batch_size=*/10));
  const command_result r = run_sluice({"replay", "-c", config, "--file", "-"}, input);
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  CHECK(r.exit_code == 0);
  const auto ids = query("SELECT id FROM public.\"" + table + "\" ORDER BY id");
  REQUIRE(ids.size() == 2);
  CHECK(str(ids[1][0]) == "3");
  const auto dead = query(
      "SELECT reason, kafka_offset, kafka_timestamp FROM sluice.dead_letters "
      "WHERE connector = '" +
      connector + "'");
  REQUIRE(dead.size() == 1);
  CHECK(str(dead[0][0])
            .starts_with("bad_timestamp: Kafka timestamp " + std::to_string(year_ahead_ms) +
                         " ms is more than 24 h"));
  CHECK(str(dead[0][1]) == "2");
}

TEST_CASE("replay reassembles DSQL chunked records whose pieces span batches") {
  const std::string topic = unique_name("dsql_replay");
  const std::string table = unique_name("replayed_chunks");
  const std::string connector = unique_name("replay_chunks");
  const std::string image = R"({"id": 3, "note": ")" + std::string(5000, 'n') + R"(", "n": 1.50})";
  const auto chunk = dsql_chunk("chunk-" + topic, image, 3, "77", "c", table);
  // Fragments first, the principal last, two messages per batch.
  std::string input;
  int64_t offset = 0;
  for (int i : {2, 0, 1})
    input += kcat_line(topic, i, offset++, std::nullopt, chunk.fragments[i]) + "\n";
  input += kcat_line(topic, 0, offset++, std::nullopt, chunk.principal) + "\n";
  std::string yaml = replay_config(connector, topic, "all", /*batch_size=*/2);
  yaml.replace(yaml.find("format: datastream"), 18, "format: dsql");
  yaml += "tables:\n  \"public." + table + "\":\n    primary.key.fields: [id]\n";
  const command_result r = run_sluice(
      {"replay", "-c", write_run_file("replay_chunks.yaml", yaml), "--file", "-"}, input);
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  CHECK(r.exit_code == 0);
  const auto rows =
      query("SELECT length(note), n::text FROM public.\"" + table + "\" WHERE id = 3");
  REQUIRE(rows.size() == 1);
  CHECK(str(rows[0][0]) == "5000");
  CHECK(str(rows[0][1]) == "1.50");
  CHECK(query("SELECT 1 FROM sluice.pending_fragments WHERE connector = '" + connector +
              "' AND piece <> -2")
            .empty());
  CHECK(query("SELECT 1 FROM sluice.dead_letters WHERE connector = '" + connector + "'").empty());
  CHECK(offsets_rows(connector) == 0);
}

TEST_CASE("replay refuses bad usage with exit code 2") {
  const std::string config =
      write_run_file("replay_usage.yaml", replay_config(unique_name("usage"), "t", "all", 10));
  CHECK(run_sluice({"replay", "-c", config}).exit_code == 2);  // no --file
  const command_result missing =
      run_sluice({"replay", "-c", config, "--file", run_dir() + "/no-such-file.jsonl"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("cannot open") != std::string::npos);
  CHECK(run_sluice({"replay", "--file", "-"}).exit_code == 2);  // no config
  CHECK(run_sluice({"replay", "-c", config, "--file", "-", "--bogus"}).exit_code == 2);
}

TEST_CASE("decode --kafka-json prints the SPEC §3 line of each message, numbers exact") {
  const std::string table = "orders";
  const std::string input =
      kcat_line("cdc.orders", 2, 7, std::string("1"),
                customer(table, "INSERT", 101, 1, "c1").json()) +
      "\n" + kcat_line("cdc.orders", 2, 8, std::string("2"), std::string("{not json")) + "\n" +
      "not a kcat line\n" + kcat_line("cdc.orders", 2, 9, std::nullopt, std::nullopt) + "\n";
  const command_result r = run_sluice({"decode", "--format", "datastream", "--kafka-json"}, input);
  INFO("stderr:\n" << r.err);
  CHECK(r.exit_code == 1);  // two lines refused (on stderr), the rest decoded
  // CSN (PostgreSQL source): class 1 (cdc), source timestamp in ns, LSN 0/65 as a number.
  CHECK(r.out == R"({"table":"public.orders","op":"upsert","key":{"id":1},"old_key":null,)"
                 R"("csn":"010180000000000000010198867251f3ff2340018000000000000065",)"
                 R"("csn_parts":[1,1767225600101000000,101],)"
                 R"("image":{"id":1,"name":"c1","balance":12345678901234567890.125,"vip":true},)"
                 R"("source":{"tx":"101","ts":"2026-01-01T00:00:00.101000Z","read":"cdc",)"
                 R"("topic":"cdc.orders","partition":2,"offset":7}})"
                 "\n");
  CHECK(r.err.find("cdc.orders[2]@8: invalid_json") != std::string::npos);
  CHECK(r.err.find("line 3: ") != std::string::npos);
  CHECK(r.err.find("@9") == std::string::npos);  // a tombstone decodes to nothing, silently
  // Nothing refused (a tombstone is no refusal): exit 0.
  const command_result clean =
      run_sluice({"decode", "--format", "datastream", "--kafka-json"},
                 kcat_line("cdc.orders", 2, 7, std::string("1"),
                           customer(table, "INSERT", 101, 1, "c1").json()) +
                     "\n" + kcat_line("cdc.orders", 2, 9, std::nullopt, std::nullopt) + "\n");
  CHECK_MESSAGE(clean.exit_code == 0, clean.err);
}

}  // namespace sluice::testing
