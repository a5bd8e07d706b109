// Every format end to end into a real MariaDB (SPEC §6b): messages produced with a real Kafka
// client, `sluice run` as a child process writing to the `mariadb` fixture, assertions on the
// replica's rows and on sluice's state there. One scenario per format; the full matrix stays
// on PostgreSQL (formats_e2e_test.cc and the others).

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "integration/support/datastream_events.h"
#include "integration/support/mariadb_replica.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
namespace {

// id → the other columns as text ("<null>" for NULL), from a query whose first column is id.
std::map<std::string, std::vector<std::string>> rows_of(const std::string& sql) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& r : mariadb_query(sql)) {
    std::vector<std::string> rest;
    for (size_t i = 1; i < r.size(); ++i)
      rest.push_back(r[i].value_or("<null>"));
    out[r[0].value_or("<null>")] = rest;
  }
  return out;
}

kafka_record datastream(const std::string& table, const std::string& op, uint64_t lsn,
                        const std::string& payload) {
  datastream_event e;
  e.table = table;
  e.change_type = op;
  e.lsn = lsn;
  e.payload_json = payload;
  return {std::nullopt, e.json(), 0};
}

}  // namespace

TEST_CASE("mariadb e2e: Datastream JSON in any order, twice, with poison and a bad date") {
  const std::string topic = unique_name("mdb_ds");
  const std::string table = unique_name("ds_rows");
  const std::string connector = unique_name("mdb_ds");
  create_topic(topic, 1);
  const std::string t = "`public`.`" + table + "`";
  std::vector<kafka_record> records = {
      datastream(table, "INSERT", 110, R"("id":1,"name":"one","born":"2001-02-03")"),
      // Newer first, then the older image of the same row: the newer one stays.
      datastream(table, "UPDATE", 130, R"("id":2,"name":"two v3","born":"2002-02-02")"),
      datastream(table, "INSERT", 120, R"("id":2,"name":"two v1","born":"2002-02-02")"),
      // A delete, then a late update older than it: the row stays gone (tombstone).
      datastream(table, "INSERT", 140, R"("id":3,"name":"three","born":null)"),
      datastream(table, "DELETE", 160, R"("id":3,"name":"three","born":null)"),
      datastream(table, "UPDATE", 150, R"("id":3,"name":"three late","born":null)"),
      // 4-byte UTF-8 round-trips.
      datastream(table, "INSERT", 170, "\"id\":4,\"name\":\"\xF0\x9F\x98\x80 four\",\"born\":null"),
      // MariaDB refuses the date: that row alone is a dead letter.
      datastream(table, "INSERT", 180, R"("id":5,"name":"five","born":"2001-02-30")"),
      {std::nullopt, "{not json", 0},
  };
  // Everything again: duplicates change nothing.
  const std::vector<kafka_record> again = records;
  records.insert(records.end(), again.begin(), again.end());
  produce(topic, records);

  sluice_process p(
      mariadb_config(connector, topic, "datastream",
                     "tables:\n  public." + table + ":\n    column.types: {born: date}\n"));
  REQUIRE_MESSAGE(mariadb_caught_up(connector, static_cast<int64_t>(records.size())), p.log());
  CHECK(p.stop() == 0);

  // Untyped JSON numbers are decimal(65,30) on MariaDB (docs/mariadb.md).
  const auto rows = rows_of("SELECT CAST(id AS SIGNED), name, born FROM " + t + " ORDER BY id");
  CHECK(rows.size() == 3);
  CHECK(rows.at("1") == std::vector<std::string>{"one", "2001-02-03"});
  CHECK(rows.at("2") == std::vector<std::string>{"two v3", "2002-02-02"});
  CHECK_FALSE(rows.contains("3"));
  CHECK(rows.at("4") == std::vector<std::string>{"\xF0\x9F\x98\x80 four", "<null>"});
  // The poison message (twice) and the bad date (twice; the second a stale repeat at most).
  const std::string reasons = mariadb_dead_letter_reasons(topic);
  CHECK_MESSAGE(mariadb_dead_letter_count(topic) >= 3, reasons);
  CHECK(reasons.find("born") != std::string::npos);
  const auto raw = mariadb_query("SELECT value FROM sluice.dead_letters WHERE topic = '" + topic +
                                 "' AND value = '{not json'");
  CHECK(raw.size() == 2);
  // The tombstone of id 3 is in the state database.
  CHECK(mariadb_query("SELECT 1 FROM sluice.tombstones WHERE target_table = '" + table + "'")
            .size() == 1);
}

}  // namespace sluice::testing
