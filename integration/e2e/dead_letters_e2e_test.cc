// `sluice dead-letters` against the real broker and PostgreSQL (issue 15): a table whose DDL
// failed (a view holds its name) leaves two ddl_failed letters and a message that is not JSON
// a decode letter; list and show find them; a replay before the fix keeps them (with their
// new reason); after the fix the replay applies them — the newer change that reached the
// table meanwhile wins — and they leave; purge needs --yes and an upper bound. Two replays
// at once take each letter once (issue 27).

#include <doctest/doctest.h>

#include <pqxx/pqxx>

#include <future>
#include <memory>
#include <string>
#include <vector>

#include "integration/support/datastream_events.h"
#include "integration/support/replica_checks.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

size_t lines_of(const std::string& text) {
  size_t n = 0;
  for (char c : text)
    n += c == '\n';
  return n;
}

// Runs sluice until the topic's `messages` are committed, then stops it.
void run_until_committed(const std::string& config, const std::string& connector,
                         int64_t messages) {
  sluice_process p(config);
  REQUIRE_MESSAGE(wait_until(
                      [&] {
                        try {  // the state schema is there once sluice has started
                          return count_of(
                                     "SELECT sum(next_offset) FROM sluice.offsets WHERE "
                                     "connector = '" +
                                     connector + "'") == messages;
                        } catch (const std::exception&) {
                          return false;
                        }
                      },
                      std::chrono::seconds(90)),
                  p.log());
  CHECK(p.stop() == 0);
}

}  // namespace

TEST_CASE("dead letters of a failed DDL are replayed once it is fixed, and leave") {
  const std::string topic = unique_name("cdc_letters");
  const std::string connector = unique_name("letters");
  const std::string s = unique_name("lettered");
  create_topic(topic, 1);
  execute("CREATE SCHEMA \"" + s + "\"");
  execute("CREATE VIEW \"" + s + "\".blocked AS SELECT 1 AS id");

  produce(topic, {datastream_record(s, "blocked", 1, 103, ",\"v\":\"one\""),
                  datastream_record(s, "blocked", 2, 104, ",\"v\":\"two\""),
                  datastream_record(s, "fine", 1, 105, ",\"v\":\"x\""),
                  {"9", std::string("{\"not json"), 0}});
  const std::string yaml = basic_config(connector, topic, "datastream", "", 100);
  const std::string config = write_run_file("letters", yaml);
  run_until_committed(yaml, connector, 4);
  CHECK(count_of("SELECT count(*) FROM \"" + s + "\".fine") == 1);

  const std::string letters =
      "SELECT count(*) FROM sluice.dead_letters WHERE connector = '" + connector + "' AND ";
  const std::string blocked = letters + "kind = 'ddl_failed' AND target_table = 'blocked'";
  REQUIRE(count_of(blocked) == 2);
  REQUIRE(count_of(letters + "kind = 'decode'") == 1);

  // list: by kind and table, as a table and as JSON lines.
  const command_result all = run_sluice({"dead-letters", "list", "-c", config});
  INFO(all.out << all.err);
  CHECK(all.exit_code == 0);
  CHECK(contains(all.out, "3 of 3 dead letter(s)"));
  CHECK(contains(all.out, "ddl_failed"));
  CHECK(contains(all.out, "decode"));
  const command_result listed = run_sluice({"dead-letters", "list", "-c", config, "--kind",
                                            "ddl_failed", "--table", s + ".blocked", "--json"});
  CHECK(listed.exit_code == 0);
  CHECK(lines_of(listed.out) == 2);
  CHECK(contains(listed.out, "\"table\":\"" + s + ".blocked\""));
  const command_result by_reason =
      run_sluice({"dead-letters", "list", "-c", config, "--reason", "INVALID JSON", "--json"});
  CHECK(lines_of(by_reason.out) == 1);

  // show: the reason, the origin and the stored change.
  const std::string id = str(query("SELECT min(id) FROM sluice.dead_letters WHERE connector = '" +
                                   connector + "' AND kind = 'ddl_failed'")
                                 .at(0)
                                 .at(0));
  const command_result shown = run_sluice({"dead-letters", "show", "-c", config, id});
  INFO(shown.out << shown.err);
  CHECK(shown.exit_code == 0);
  CHECK(contains(shown.out, "kind:     ddl_failed"));
  CHECK(contains(shown.out, "origin:   " + topic + "[0]@0"));
  CHECK(contains(shown.out, "\"upsert_csn\""));
  CHECK(run_sluice({"dead-letters", "show", "-c", config, "999999999"}).exit_code == 1);

  // Replayed before the cause is fixed: they fail again and stay, with the reason of now,
  // under the ids they had (an id noted by an operator, or an --up-to-id, still names them).
  const std::string blocked_ids =
      "SELECT string_agg(id::text, ',' ORDER BY id) FROM "
      "sluice.dead_letters WHERE connector = '" +
      connector + "' AND target_table = 'blocked'";
  const std::string ids_before = str(query(blocked_ids).at(0).at(0));
  execute("UPDATE sluice.dead_letters SET reason = 'the reason of then' WHERE connector = '" +
          connector + "' AND target_table = 'blocked'");
  const command_result early =
      run_sluice({"dead-letters", "replay", "-c", config, "--table", s + ".blocked"});
  INFO(early.out << early.err);
  CHECK(early.exit_code == 1);  // not done: a script must not read this as success
  CHECK(contains(early.out, "letters taken   2"));
  CHECK(contains(early.out, "failing again   2"));
  CHECK(contains(early.err, "2 letter(s) failed again"));
  CHECK(count_of(blocked) == 2);
  CHECK(str(query(blocked_ids).at(0).at(0)) == ids_before);
  CHECK(count_of(letters + "reason = 'the reason of then'") == 0);

  // The cause fixed; meanwhile a newer change of id 2 reached the table through the stream.
  execute("DROP VIEW \"" + s + "\".blocked");
  produce(topic, {datastream_record(s, "blocked", 2, 300, ",\"v\":\"two, newer\"")});
  run_until_committed(yaml, connector, 5);
  CHECK(count_of("SELECT count(*) FROM \"" + s + "\".blocked") == 1);

  // A dry run says what it would take and takes nothing; --limit 1 takes one letter.
  const command_result dry =
      run_sluice({"dead-letters", "replay", "-c", config, "--kind", "ddl_failed", "--dry-run"});
  INFO(dry.out << dry.err);
  CHECK(dry.exit_code == 0);
  CHECK(contains(dry.out, "2 letter(s) would be taken, 0 skipped"));
  CHECK(count_of(blocked) == 2);
  const command_result one =
      run_sluice({"dead-letters", "replay", "-c", config, "--kind", "ddl_failed", "--limit", "1"});
  INFO(one.out << one.err);
  CHECK(one.exit_code == 0);
  CHECK(contains(one.out, "letters taken   1"));
  CHECK(count_of(blocked) == 1);
  const command_result fixed =
      run_sluice({"dead-letters", "replay", "-c", config, "--kind", "ddl_failed"});
  INFO(fixed.out << fixed.err);
  CHECK(fixed.exit_code == 0);
  CHECK(contains(fixed.out, "letters taken   1"));
  CHECK(contains(fixed.out, "failing again   0"));
  CHECK(count_of(blocked) == 0);
  const auto rows = query("SELECT id, v FROM \"" + s + "\".blocked ORDER BY id");
  REQUIRE(rows.size() == 2);
  CHECK(str(rows[0][1]) == "one");
  CHECK(str(rows[1][1]) == "two, newer");  // the letter's older change changed nothing

  // The decode letter is still not JSON: replayed, it stays; purge needs --yes.
  const command_result undecodable =
      run_sluice({"dead-letters", "replay", "-c", config, "--kind", "decode"});
  CHECK(undecodable.exit_code == 1);
  CHECK(count_of(letters + "kind = 'decode'") == 1);
  const std::string newest = str(query("SELECT max(id) FROM sluice.dead_letters WHERE "
                                       "connector = '" +
                                       connector + "' AND kind = 'decode'")
                                     .at(0)
                                     .at(0));
  const command_result asked =
      run_sluice({"dead-letters", "purge", "-c", config, "--kind", "decode"});
  CHECK(asked.exit_code == 1);
  CHECK(contains(asked.out, "1 dead letter(s) match, the newest id " + newest));
  CHECK(count_of(letters + "kind = 'decode'") == 1);
  // A letter written after the count is not what the operator decided on: --yes without an
  // upper bound is refused, and the bound the count printed keeps the late letter.
  const command_result unbounded =
      run_sluice({"dead-letters", "purge", "-c", config, "--kind", "decode", "--yes"});
  CHECK(unbounded.exit_code == 2);
  CHECK(contains(unbounded.err, "--yes needs an upper bound"));
  execute("INSERT INTO sluice.dead_letters (connector, reason, kind) VALUES ('" + connector +
          "', 'written after the count', 'decode')");
  const command_result purged = run_sluice(
      {"dead-letters", "purge", "-c", config, "--kind", "decode", "--up-to-id", newest, "--yes"});
  CHECK(purged.exit_code == 0);
  CHECK(contains(purged.out, "purged 1 dead letter(s)"));
  CHECK(count_of(letters + "reason = 'written after the count'") == 1);
  execute("DELETE FROM sluice.dead_letters WHERE connector = '" + connector + "'");
  CHECK(count_of(letters + "true") == 0);
  // Nothing left to purge is no error; a time sluice cannot read is refused before
  // PostgreSQL is asked (not PostgreSQL's raw error, exit 1), and one it can read is read as
  // UTC whatever the server's zone.
  const command_result none = run_sluice({"dead-letters", "purge", "-c", config});
  CHECK(none.exit_code == 0);
  CHECK(contains(none.out, "nothing to purge"));
  const command_result junk = run_sluice({"dead-letters", "list", "-c", config, "--until", "junk"});
  CHECK(junk.exit_code == 2);
  CHECK(contains(junk.err, "--until junk is neither an ISO 8601 time"));
  const command_result zoneless =
      run_sluice({"dead-letters", "list", "-c", config, "--since", "2026-01-01 10:00"});
  CHECK_MESSAGE(zoneless.exit_code == 0, zoneless.err);
  // Offsets never moved.
  CHECK(count_of("SELECT sum(next_offset) FROM sluice.offsets WHERE connector = '" + connector +
                 "'") == 5);
}

TEST_CASE("two replays at once take each letter once, the second waiting for the first") {
  const std::string topic = unique_name("cdc_turns");
  const std::string connector = unique_name("turns");
  const std::string s = unique_name("turned");
  create_topic(topic, 1);
  // Keyless rows, dead-lettered first (keyless: dead_letter), then appended by the replays
  // (keyless: append): a letter taken twice would be a row twice.
  std::vector<kafka_record> records;
  for (int i = 1; i <= 3; ++i) {
    datastream_event e;
    e.schema = s;
    e.table = "events";
    e.lsn = 100 + static_cast<uint64_t>(i);
    e.primary_key = "";
    e.payload_json = "\"id\": " + std::to_string(i);
    records.push_back({std::to_string(i), e.json(), 0});
  }
  produce(topic, records);
  const std::string lettering =
      basic_config(connector, topic, "datastream", "keyless: dead_letter\n", 100);
  run_until_committed(lettering, connector, 3);
  const std::string letters =
      "SELECT count(*) FROM sluice.dead_letters WHERE connector = '" + connector + "'";
  REQUIRE(count_of(letters) == 3);
  const std::string config = write_run_file(
      "turns", basic_config(connector, topic, "datastream", "keyless: append\n", 100));

  // While another replay holds the connector's turn, a replay waits and takes nothing.
  auto other = std::make_unique<pqxx::connection>(postgres_dsn());
  pqxx::nontransaction(*other).exec(
      "SELECT pg_advisory_lock(hashtextextended('sluice dead-letters replay of " + connector +
      " in sluice', 0))");
  auto waiting = std::async(std::launch::async, [&] {
    return run_sluice({"dead-letters", "replay", "-c", config});
  });
  CHECK(waiting.wait_for(std::chrono::seconds(4)) == std::future_status::timeout);
  CHECK(count_of(letters) == 3);
  other.reset();  // the other replay ends
  const command_result waited = waiting.get();
  INFO(waited.out << waited.err);
  CHECK(waited.exit_code == 0);
  CHECK(contains(waited.err, "another dead-letters replay of " + connector + " is running"));
  CHECK(contains(waited.out, "letters taken   3"));
  CHECK(count_of(letters) == 0);
  CHECK(count_of("SELECT count(*) FROM \"" + s + "\".events") == 3);

  // Two at once over the same letters: each is appended once.
  execute("TRUNCATE \"" + s + "\".events");
  produce(topic, records);
  run_until_committed(lettering, connector, 6);
  REQUIRE(count_of(letters) == 3);
  auto first = std::async(std::launch::async, [&] {
    return run_sluice({"dead-letters", "replay", "-c", config});
  });
  auto second = std::async(std::launch::async, [&] {
    return run_sluice({"dead-letters", "replay", "-c", config});
  });
  const command_result a = first.get();
  const command_result b = second.get();
  INFO(a.out << a.err << b.out << b.err);
  CHECK(a.exit_code == 0);
  CHECK(b.exit_code == 0);
  CHECK(count_of(letters) == 0);
  CHECK(count_of("SELECT count(*) FROM \"" + s + "\".events") == 3);
}

}  // namespace sluice::testing
