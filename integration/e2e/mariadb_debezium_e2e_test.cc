// Debezium JSON and Debezium Avro through a real registry, end to end into a real MariaDB
// (mariadb_e2e_test.cc says how).

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

#include <avro.h>

#include "core/model/base64.h"
#include "core/model/json_text.h"
#include "integration/e2e/mariadb_e2e_support.h"
#include "integration/support/fixture_files.h"
#include "integration/support/mariadb_replica.h"
#include "integration/support/registry_admin.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {

TEST_CASE(
    "mariadb e2e: Debezium JSON with schemas gives typed columns; keys differing only in case "
    "stay apart; a key change and a delete hold against late updates") {
  const std::string topic = unique_name("mdb_dbz");
  const std::string table = unique_name("dbz_codes");
  const std::string connector = unique_name("mdb_dbz");
  create_topic(topic, 1);

  const std::string at = "2026-07-13T06:01:01.5+02:00";  // 04:01:01.5 UTC
  constexpr int32_t day = 20'647;                        // 2026-07-13
  const auto c = [&](const std::string& code, int64_t cents, int n, int64_t lsn) {
    return dbz_json(table, code, "c", "null", dbz_row(code, cents, day, at, R"({"n":1})", n), lsn);
  };
  const auto u = [&](const std::string& code, int64_t cents, int n, int64_t lsn) {
    return dbz_json(table, code, "u", "null", dbz_row(code, cents, day, at, R"({"n":2})", n), lsn);
  };
  const auto d = [&](const std::string& code, int64_t lsn) {
    return dbz_json(table, code, "d", dbz_row(code, 0, day, at, "{}", 0), "null", lsn);
  };
  const std::vector<kafka_record> history = {
      // Three keys a collation with PAD SPACE or _ci would merge.
      c("a", 100, 1, 100),
      c("A", 200, 2, 101),
      c("a ", 300, 3, 102),
      u("a", 150, 11, 200),  // only 'a' changes
      // Key change 'b' -> 'c' (Debezium: a delete of the old key, a create of the new one),
      // then a late update of 'b' older than the change.
      c("b", 400, 4, 110),
      d("b", 300),
      c("c", 401, 5, 300),
      u("b", 402, 6, 250),
      // A delete, then a late update older than it.
      c("x", 500, 7, 120),
      d("x", 400),
      u("x", 501, 8, 350),
      {std::string(R"({"code":"x"})"), std::nullopt, 0},  // the tombstone after a delete
  };
  const std::vector<kafka_record> records = twice_reordered(history);
  produce(topic, records);

  sluice_process p(mariadb_config(connector, topic, "debezium", "", 3));
  REQUIRE_MESSAGE(mariadb_caught_up(connector, static_cast<int64_t>(records.size())), p.log());
  CHECK(p.stop() == 0);
  INFO("sluice:\n" << p.log());
  CHECK_MESSAGE(mariadb_dead_letter_count(topic) == 0, mariadb_dead_letter_reasons(topic));

  auto types = mariadb_column_types("public", table);
  CHECK(types.at("code").starts_with("varchar("));
  CHECK(types.at("code").ends_with(" COLLATE utf8mb4_nopad_bin"));
  types.erase("code");
  CHECK(lines(types) == lines({{"amount", "decimal(10,2)"},
                               {"day", "date"},
                               {"at", "datetime(6)"},
                               {"meta", "json"},
                               {"n", "int(11)"}}));

  // Binary comparison: 'a', 'A' and 'a ' are three rows (hex, for the trailing space).
  const auto rows =
      rows_of("SELECT hex(code), amount, day, at, JSON_VALUE(meta, '$.n'), n FROM `public`.`" +
              table + "` ORDER BY code");
  const auto row = [](const char* amount, const char* meta, const char* n) {
    return std::vector<std::string>{amount, "2026-07-13", "2026-07-13 04:01:01.500000", meta, n};
  };
  CHECK(rows.size() == 4);
  CHECK(rows.at("61") == row("1.50", "2", "11"));   // 'a', updated
  CHECK(rows.at("41") == row("2.00", "1", "2"));    // 'A'
  CHECK(rows.at("6120") == row("3.00", "1", "3"));  // 'a '
  CHECK(rows.at("63") == row("4.01", "1", "5"));    // 'c', the new key of 'b'
  CHECK_FALSE(rows.contains("62"));                 // 'b'
  CHECK_FALSE(rows.contains("78"));                 // 'x'
  CHECK(cell("SELECT count(*) FROM sluice.tombstones WHERE target_schema = 'public' AND "
             "target_table = '" +
             table + "'") == "2");
}

// --- Debezium Avro through the Schema Registry ---

namespace {

// The Confluent wire format: magic byte 0, the schema id big-endian, the Avro binary body.
std::string framed(int32_t id, const std::string& body) {
  const auto u = static_cast<uint32_t>(id);
  std::string out{'\0', static_cast<char>(u >> 24), static_cast<char>(u >> 16),
                  static_cast<char>(u >> 8), static_cast<char>(u)};
  return out + body;
}

// tests/fixtures/debezium_avro/avro.tsv: per message, base64 key <tab> base64 value (empty: a
// tombstone); framed with the ids the registry gave.
std::vector<kafka_record> debezium_avro_records(int32_t key_id, int32_t value_id) {
  const auto unbase64 = [](const std::string& text) {
    std::string out;
    REQUIRE_MESSAGE(decode_base64(text, out), text);
    return out;
  };
  std::vector<kafka_record> out;
  for (const std::string& line : lines_of(read_fixture("debezium_avro/avro.tsv"))) {
    const size_t tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    kafka_record r;
    r.key = framed(key_id, unbase64(line.substr(0, tab)));
    if (tab + 1 < line.size()) r.value = framed(value_id, unbase64(line.substr(tab + 1)));
    r.partition = 0;
    out.push_back(r);
  }
  return out;
}

}  // namespace

TEST_CASE(
    "mariadb e2e: Debezium Avro through a real registry, twice and reordered, gives the source's "
    "types and rows") {
  const std::string topic = unique_name("mdb_dbz_avro");
  const std::string database = unique_name("mdb_dbz_avro");
  const std::string connector = unique_name("mdb_dbz_avro");
  create_topic(topic, 1);
  const int32_t key_id =
      register_schema(topic + "-key", read_fixture("debezium_avro/key.avsc")).value();
  const int32_t value_id =
      register_schema(topic + "-value", read_fixture("debezium_avro/value.avsc")).value();
  // The fixture's history (README.md): r 1, 2, 3; c 4, 5; u 1, 3; d 2; u 4; d 5; c 5 again.
  const std::vector<kafka_record> records =
      twice_reordered(debezium_avro_records(key_id, value_id));
  produce(topic, records);

  sluice_process p(mariadb_config(connector, topic, "debezium",
                                  "table.name.format: \"" + database +
                                      ".${table}\"\nschema.registry.url: \"" + registry_url() +
                                      "\"\n",
                                  4));
  REQUIRE_MESSAGE(mariadb_caught_up(connector, static_cast<int64_t>(records.size())), p.log());
  CHECK(p.stop() == 0);
  INFO("sluice:\n" << p.log());
  CHECK_MESSAGE(mariadb_dead_letter_count(topic) == 0, mariadb_dead_letter_reasons(topic));

  // Connect's types; int16 as smallint, VariableScaleDecimal unconstrained, MicroTimestamp
  // and ZonedTimestamp as datetime(6), Uuid as MariaDB's uuid, arrays as json.
  CHECK(lines(mariadb_column_types(database, "orders")) ==
        lines({{"id", "bigint(20)"},
               {"qty", "smallint(6)"},
               {"customer_id", "int(11)"},
               {"note", "longtext COLLATE utf8mb4_nopad_bin"},
               {"amount", "decimal(12,2)"},
               {"ratio", "decimal(65,30)"},
               {"weight", "float"},
               {"price", "double"},
               {"paid", "tinyint(1)"},
               {"payload", "longblob"},
               {"order_date", "date"},
               {"created_at", "datetime(6)"},
               {"updated_at", "datetime(6)"},
               {"pickup", "time(6)"},
               {"attrs", "json"},
               {"ref", "uuid"},
               {"tags", "json"}}));

  // Each row as the text of its non-NULL columns (as concat_ws would join them).
  std::map<std::string, std::string> got;
  for (const auto& r :
       mariadb_query("SELECT id, qty, customer_id, note, amount, ratio, price, paid, hex(payload), "
                     "order_date, created_at, updated_at, pickup, attrs, ref, tags FROM `" +
                     database + "`.`orders` ORDER BY id")) {
    std::string text;
    for (size_t i = 1; i < r.size(); ++i)
      if (r[i]) text += (text.empty() ? "" : " | ") + *r[i];
    got[r[0].value_or("")] = text;
  }
  CHECK(
      lines(got) ==
      lines({{"1",
              "4 | 1001 | first order, amended | 0.00 | 0.125000000000000000000000000000 | "
              "19.99 | 1 | 00FF10 | 2026-01-15 | 2026-01-15 09:30:00.123456 | "
              "2026-01-15 10:00:00.000001 | 13:45:30.123456 | {\"gift\": true, \"n\": 2} | "
              "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
             {"3", "7 | mostly null | 7.70 | 2.25 | 2026-02-01 00:00:00.000000 | []"},
             {"4",
              "32767 | -2147483648 | fourth, updated | -0.01 | -0.000000000325 | 1 | 0001-01-01 | "
              "2262-04-11 23:47:16.854775 | 2024-07-01 10:00:00.000000 | 23:59:59.999999 | "
              "{\"k\": \"v\", \"nested\": {\"a\": [1, 2.5, null]}} | "
              "ffffffff-ffff-ffff-ffff-ffffffffffff | [\"\xC3\xBC\",null,\"\"]"},
             {"5",
              "0 | 0 | back again | 5.05 | 0.000000000000000000000000000000 | 0 | 1970-01-01 | "
              "1970-01-01 00:00:00.000000 | [\"x\"]"}}));
  // Deletes of 2 and 5 left tombstones (5's, older than its return, stays until it expires).
  const auto tombstones = mariadb_query(
      "SELECT group_concat(key_json ORDER BY key_json) FROM sluice.tombstones WHERE "
      "target_schema = '" +
      database + "' AND target_table = 'orders'");
  CHECK(tombstones.at(0).at(0).value_or("") == R"({"id":2},{"id":5})");
  // The schemas fetched are kept in the target's state database.
  CHECK(cell("SELECT count(*) FROM sluice.registry_schemas WHERE id IN (" + std::to_string(key_id) +
             ", " + std::to_string(value_id) + ")") == "2");
}

// --- Aurora DSQL ---

}  // namespace sluice::testing
