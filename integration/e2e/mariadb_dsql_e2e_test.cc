// Aurora DSQL CDC records and chunks end to end into a real MariaDB (mariadb_e2e_test.cc says
// how).

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

#include "core/model/base64.h"
#include "core/model/json_text.h"
#include "integration/e2e/mariadb_e2e_support.h"
#include "integration/support/mariadb_replica.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/schemas/dsql_records.h"

namespace sluice::testing {

namespace {

kafka_record dsql(const std::string& table, const std::string& op, const std::string& before,
                  const std::string& after, int64_t ts_ns, int partition) {
  // The top-level ts_ns (processing time) runs against source.ts_ns and must not decide.
  return {std::nullopt,
          R"({"type":"full","op":")" + op + R"(","before":)" + before + R"(,"after":)" + after +
              R"(,"source":{"version":"1.0","ts_ms":1,"ts_ns":)" + std::to_string(ts_ns) +
              R"(,"txId":"t)" + std::to_string(ts_ns) + R"(","schema":"public","table":")" + table +
              R"(","db":"postgres","cluster":"c1"},"ts_ms":1,"ts_ns":)" +
              std::to_string(9'000'000'000 - ts_ns) + "}",
          partition};
}

}  // namespace

TEST_CASE(
    "mariadb e2e: DSQL records on random partitions, twice, end in source.ts_ns order, keyed "
    "and typed by the target table") {
  const std::string topic = unique_name("mdb_dsql");
  const std::string table = unique_name("dsql_accounts");
  const std::string connector = unique_name("mdb_dsql");
  const std::string t = "`public`.`" + table + "`";
  create_topic(topic, 3);
  // DSQL names no key and carries no types: the table the user made gives both. Its key is a
  // binary NO PAD text column (sluice refuses a PAD SPACE one such as utf8mb4_bin's), so 'x'
  // and 'X' are two tenants.
  mariadb_query("CREATE DATABASE IF NOT EXISTS `public`");
  mariadb_query("CREATE TABLE " + t +
                " (tenant varchar(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin, id bigint, "
                "v varchar(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, amount decimal(10,2), "
                "at datetime(6), PRIMARY KEY (tenant, id))");

  const auto row = [](const char* tenant, int id, const char* v) {
    return R"({"tenant":")" + std::string(tenant) + R"(","id":)" + std::to_string(id) +
           R"(,"v":")" + v + R"(","amount":12.5,"at":"2026-07-13T04:01:01.5Z"})";
  };
  const auto key = [](const char* tenant, int id) {
    return R"({"id":)" + std::to_string(id) + R"(,"tenant":")" + tenant + R"("})";
  };
  int next = 0;  // random partitions: dealt round
  const std::vector<kafka_record> history = {
      // x/1: updates (some as `c`) newest first.
      dsql(table, "u", "null", row("x", 1, "third"), 400, next++ % 3),
      dsql(table, "c", "null", row("x", 1, "second"), 250, next++ % 3),
      dsql(table, "c", "null", row("x", 1, "first"), 100, next++ % 3),
      // X/1: another key, though a _ci collation would call it the same.
      dsql(table, "c", "null", row("X", 1, "upper"), 200, next++ % 3),
      // y/1: deleted, then a late update older than the delete.
      dsql(table, "c", "null", row("y", 1, "first"), 150, next++ % 3),
      dsql(table, "d", key("y", 1), "null", 500, next++ % 3),
      dsql(table, "u", "null", row("y", 1, "late"), 300, next++ % 3),
  };
  const std::vector<kafka_record> records = twice_reordered(history);
  produce(topic, records);

  sluice_process p(mariadb_config(connector, topic, "dsql", "apply.lanes: 2\n", 3));
  REQUIRE_MESSAGE(mariadb_caught_up(connector, static_cast<int64_t>(records.size())), p.log());
  CHECK(p.stop() == 0);
  INFO("sluice:\n" << p.log());
  CHECK_MESSAGE(mariadb_dead_letter_count(topic) == 0, mariadb_dead_letter_reasons(topic));

  const auto rows =
      rows_of("SELECT concat(tenant, '/', id), v, amount, at FROM " + t + " ORDER BY 1");
  CHECK(rows.size() == 2);
  CHECK(rows.at("x/1") == std::vector<std::string>{"third", "12.50", "2026-07-13 04:01:01.500000"});
  CHECK(rows.at("X/1") == std::vector<std::string>{"upper", "12.50", "2026-07-13 04:01:01.500000"});
  CHECK_FALSE(rows.contains("y/1"));
  // The user's types were kept: sluice only added its own columns.
  CHECK(lines(mariadb_column_types("public", table)) ==
        lines({{"tenant", "varchar(8) COLLATE utf8mb4_nopad_bin"},
               {"id", "bigint(20)"},
               {"v", "varchar(40) COLLATE utf8mb4_bin"},
               {"amount", "decimal(10,2)"},
               {"at", "datetime(6)"}}));
  CHECK(cell("SELECT count(*) FROM sluice.tombstones WHERE target_schema = 'public' AND "
             "target_table = '" +
             table + "'") == "1");
}

namespace {

// A row image of some size, with values that must survive byte for byte.
std::string big_image(int id, size_t filler) {
  std::string text;
  for (size_t i = 0; text.size() < filler; ++i)
    text += "line " + std::to_string(i * 7919 % 1000) + " \\u00e9\\n ";
  return R"({"id": )" + std::to_string(id) + R"(, "note": "image )" + std::to_string(id) +
         R"(", "text": ")" + text + R"(", "big": 12345678901234567890.125, "flag": true})";
}

}  // namespace

TEST_CASE(
    "mariadb e2e: DSQL chunks spread over partitions and lanes, twice, reassemble into rows; a "
    "bad checksum is a dead letter") {
  const std::string topic = unique_name("mdb_dsql_chunks");
  const std::string table = unique_name("chunked_rows");
  const std::string connector = unique_name("mdb_dsql_chunks");
  constexpr int partitions = 4;
  create_topic(topic, partitions);

  // Two chunked rows, fragments first and dealt round the partitions (so that each chunk has
  // pieces on both lanes), a full record, and a chunk whose checksum is wrong.
  std::map<int, std::string> images;
  std::vector<kafka_record> history;
  int next = 0;
  for (int id = 1; id <= 2; ++id) {
    images[id] = big_image(id, 30'000 * static_cast<size_t>(id));
    const auto c = dsql_chunk("chunk-" + topic + "-" + std::to_string(id), images[id], 3,
                              std::to_string(1000 + id), "c", table);
    for (auto it = c.fragments.rbegin(); it != c.fragments.rend(); ++it)
      history.push_back({std::nullopt, *it, next++ % partitions});
    history.push_back({std::nullopt, c.principal, next++ % partitions});
  }
  history.push_back(dsql(table, "c", "null", R"({"id":9,"note":"whole"})", 1009, next++ % 3));
  const std::string bad_image = big_image(4, 1000);
  const auto parts = split_text(bad_image, 2);
  const std::string bad_id = "chunk-" + topic + "-bad";
  history.push_back({std::nullopt, dsql_fragment(bad_id, 0, parts[0]), 0});
  history.push_back({std::nullopt, dsql_fragment(bad_id, 1, parts[1]), 1});
  history.push_back(
      {std::nullopt, dsql_principal(bad_id, 2, crc32c(bad_image) + 1, "1004", "c", table), 2});
  const std::vector<kafka_record> records = twice_reordered(history);
  produce(topic, records);

  sluice_process p(mariadb_config(
      connector, topic, "dsql",
      "apply.lanes: 2\ntables:\n  \"public." + table + "\":\n    primary.key.fields: [id]\n", 3));
  REQUIRE_MESSAGE(mariadb_caught_up(connector, static_cast<int64_t>(records.size())), p.log());
  CHECK(p.stop() == 0);
  INFO("sluice:\n" << p.log());

  // Each row is its image, compared column by column with the image's own text.
  for (int id : {1, 2}) {
    CAPTURE(id);
    // The image as an SQL literal: MariaDB reads backslashes in quotes as escapes.
    std::string image;
    for (char ch : images[id])
      image += ch == '\\' ? std::string("\\\\") : std::string(1, ch);
    const auto rows = mariadb_query(
        "SELECT r.note = JSON_VALUE(i.j, '$.note'), r.text = JSON_VALUE(i.j, '$.text'), r.big, "
        "r.flag FROM `public`.`" +
        table + "` r, (SELECT '" + image + "' AS j) i WHERE r.id = " + std::to_string(id));
    REQUIRE(rows.size() == 1);
    CHECK(rows[0][0].value_or("") == "1");
    CHECK(rows[0][1].value_or("") == "1");
    CHECK(rows[0][2].value_or("") == "12345678901234567890.125000000000000000000000000000");
    CHECK(rows[0][3].value_or("") == "1");
  }
  CHECK(cell("SELECT count(*) FROM `public`.`" + table + "`") == "3");  // 1, 2 and 9
  CHECK(cell("SELECT count(*) FROM `public`.`" + table + "` WHERE id = 4") == "0");
  // The bad chunk: each of its three pieces once (their redelivery is dropped by the chunk's
  // completed marker), and no piece left waiting (markers, piece -2, stay for chunk.timeout).
  const std::string reasons = mariadb_dead_letter_reasons(topic);
  CHECK_MESSAGE(mariadb_dead_letter_count(topic) == 3, reasons);
  CHECK(reasons.find(bad_id + ": CRC32C mismatch") != std::string::npos);
  CHECK(cell("SELECT count(*) FROM sluice.pending_fragments WHERE connector = '" + connector +
             "' AND piece >= 0") == "0");
}

// --- insert.mode update and ByLogicalTableRouter's shard tables ---

}  // namespace sluice::testing
