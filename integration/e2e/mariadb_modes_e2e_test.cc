// Kafka Connect's insert.mode update and ByLogicalTableRouter's shard tables end to end into a
// real MariaDB (mariadb_e2e_test.cc says how).

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/model/json_text.h"
#include "integration/e2e/mariadb_e2e_support.h"
#include "integration/support/mariadb_replica.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {

TEST_CASE(
    "mariadb e2e: insert.mode update changes the rows an adopted table holds, older changes "
    "do not win, and the changes of absent rows make none") {
  const std::string topic = unique_name("mdb_upd");
  const std::string table = unique_name("upd_codes");
  const std::string connector = unique_name("mdb_upd");
  create_topic(topic, 1);
  // A replica another sink built: sluice adds its own columns, and a NULL CSN is older than
  // any change.
  mariadb_query("CREATE DATABASE IF NOT EXISTS `public`");
  mariadb_query("CREATE TABLE `public`.`" + table +
                "` (code varchar(16) COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY, "
                "amount decimal(10,2), day date, at datetime(6), meta json, n int)");
  mariadb_query("INSERT INTO `public`.`" + table +
                "` (code, n) VALUES ('a', 1), ('b', 2), ('gone', 3)");

  const std::string at = "2026-07-13T06:01:01.5+02:00";
  constexpr int32_t day = 20'647;
  const auto u = [&](const std::string& code, int n, int64_t lsn) {
    return dbz_json(table, code, "u", "null", dbz_row(code, 100 * n, day, at, "{}", n), lsn);
  };
  const std::vector<kafka_record> history = {
      u("a", 10, 200),
      u("a", 9, 150),  // the newer wins, in either order
      u("b", 20, 210),
      u("new", 30, 220),  // absent: counted, not made
      dbz_json(table, "gone", "d", dbz_row("gone", 0, day, at, "{}", 0), "null", 230),
      u("gone", 40, 225),  // older than its delete
  };
  const std::vector<kafka_record> records = twice_reordered(history);
  produce(topic, records);

  sluice_process p(mariadb_config(connector, topic, "debezium",
                                  "insert.mode: update\ndelete.enabled: true\n", 3));
  REQUIRE_MESSAGE(mariadb_caught_up(connector, static_cast<int64_t>(records.size())), p.log());
  CHECK(p.stop() == 0);
  INFO("sluice:\n" << p.log());
  CHECK_MESSAGE(mariadb_dead_letter_count(topic) == 0, mariadb_dead_letter_reasons(topic));

  const auto rows = rows_of("SELECT code, amount, n FROM `public`.`" + table + "` ORDER BY code");
  CHECK(rows.size() == 2);
  CHECK(rows.at("a") == std::vector<std::string>{"10.00", "10"});
  CHECK(rows.at("b") == std::vector<std::string>{"20.00", "20"});
  CHECK_FALSE(rows.contains("new"));
  CHECK_FALSE(rows.contains("gone"));
  CHECK(p.log().find("not made (insert.mode: update)") != std::string::npos);
}

namespace {

// A Debezium change of one shard (its source database) of a logical table.
kafka_record shard_json(const std::string& db, const std::string& table, const std::string& code,
                        int n, int64_t lsn) {
  kafka_record r = dbz_json(table, code, "c", "null",
                            dbz_row(code, n, 20'647, "2026-07-13T06:01:01.5+02:00", "{}", n), lsn);
  const std::string shop = R"("db":"shop")";
  r.value->replace(r.value->find(shop), shop.size(), R"("db":")" + db + "\"");
  return r;
}

// The shard's truncate: no key, no image.
kafka_record shard_truncate(const std::string& db, const std::string& table, int64_t lsn) {
  kafka_record r = shard_json(db, table, "-", 0, lsn);
  r.key = std::nullopt;
  std::string& v = *r.value;
  const size_t after = v.find(R"(,"after":)");
  v.replace(after, v.find(R"(,"source":)") - after, R"(,"after":null)");
  v.replace(v.find(R"("op":"c")"), 8, R"("op":"t")");
  return r;
}

}  // namespace

TEST_CASE(
    "mariadb e2e: ByLogicalTableRouter lands two shards in one table; a shard's truncate "
    "removes its rows only and keeps its late older rows out") {
  const std::string prefix = unique_name("mdb_shard");
  const std::string table = unique_name("shard_orders");
  const std::string connector = unique_name("mdb_shard");
  const std::string db1 = prefix + "_db1", db2 = prefix + "_db2";
  create_topic(db1, 1);
  create_topic(db2, 1);
  produce(db1, {shard_json("db1", table, "1", 1, 100), shard_json("db1", table, "2", 2, 600),
                shard_truncate("db1", table, 500), shard_json("db1", table, "3", 3, 400),
                shard_json("db1", table, "4", 4, 700)});
  produce(db2, {shard_json("db2", table, "1", 11, 100), shard_json("db2", table, "2", 12, 110),
                shard_json("db2", table, "3", 13, 400)});

  sluice_process p(mariadb_config(
      connector, db1 + ", " + db2, "debezium",
      "truncate.enabled: true\n"
      "transforms: [shards]\n"
      "transforms.shards.type: "
      "io.debezium.transforms.ByLogicalTableRouter\n"
      "transforms.shards.topic.regex: \"" +
          prefix + "_db[0-9]\"\n" + "transforms.shards.topic.replacement: \"" + prefix + "_all\"\n",
      2));
  REQUIRE_MESSAGE(mariadb_caught_up(connector, 8), p.log());
  CHECK(p.stop() == 0);
  INFO("sluice:\n" << p.log());
  CHECK_MESSAGE(mariadb_dead_letter_count(db1) == 0, mariadb_dead_letter_reasons(db1));
  CHECK_MESSAGE(mariadb_dead_letter_count(db2) == 0, mariadb_dead_letter_reasons(db2));

  // One table, rows kept apart by the shard column (the topic each came from); db1's rows
  // below its truncate (1, and 3 come late) are gone, db2's all stay.
  std::string got;
  for (const auto& r : mariadb_query("SELECT `__dbz__physicalTableIdentifier`, code, n FROM "
                                     "`public`.`" +
                                     table + "` ORDER BY 1, 2"))
    got += r[0].value_or("~") + ":" + r[1].value_or("~") + "=" + r[2].value_or("~") + " ";
  CHECK(got == db1 + ":2=2 " + db1 + ":4=4 " + db2 + ":1=11 " + db2 + ":2=12 " + db2 + ":3=13 ");
  // The shards share the claim of their target, by the shard column (its target name, folded to
  // lower case); the tombstone is db1's.
  CHECK(cell("SELECT count(*) FROM sluice.routes WHERE connector = '" + connector +
             "' AND target_table = '" + table + "'") == "1");
  CHECK(cell("SELECT shard_column FROM sluice.routes WHERE connector = '" + connector +
             "' AND target_table = '" + table + "'") == "__dbz__physicaltableidentifier");
  CHECK(cell("SELECT JSON_VALUE(key_json, '$.__dbz__physicaltableidentifier') FROM "
             "sluice.tombstones WHERE target_schema = 'public' AND target_table = '" +
             table + "'") == db1);
}

}  // namespace sluice::testing
