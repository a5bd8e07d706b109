// Every format end to end into a real MariaDB (SPEC §6b): messages produced with a real Kafka
// client, `sluice run` as a child process writing to the `mariadb` fixture, assertions on the
// replica's rows and on sluice's state there. One scenario per format; the full matrix stays
// on PostgreSQL (formats_e2e_test.cc and the others).
// Datastream here; GoldenGate, Debezium, DSQL and the Connect modes in mariadb_*_e2e_test.cc.

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
#include "integration/support/avro_container_writer.h"
#include "integration/support/datastream_events.h"
#include "integration/support/fixture_files.h"
#include "integration/support/mariadb_replica.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {

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

// --- Datastream Avro ---

namespace {

// Datastream's Avro record (PostgreSQL source) with a payload of typed columns: one object
// container per message, as Datastream writes them. Payload: id long; amount decimal(12,2),
// day date, blob bytes, doc json (string + logicalType json), note string, each nullable; at
// timestamp-micros (a zoned timestamp).
constexpr const char* datastream_avro_schema =
    R"({"type":"record","name":"event","fields":[)"
    R"({"name":"stream_name","type":"string"},{"name":"read_method","type":"string"},)"
    R"({"name":"object","type":"string"},{"name":"schema_key","type":"string"},)"
    R"({"name":"uuid","type":"string"},)"
    R"({"name":"read_timestamp","type":{"type":"long","logicalType":"timestamp-millis"}},)"
    R"({"name":"source_timestamp","type":{"type":"long","logicalType":"timestamp-millis"}},)"
    R"({"name":"sort_keys","type":{"type":"array","items":["string","long"]}},)"
    R"({"name":"source_metadata","type":{"type":"record","name":"source_metadata","fields":[)"
    R"({"name":"schema","type":"string"},{"name":"table","type":"string"},)"
    R"({"name":"is_deleted","type":"boolean"},{"name":"change_type","type":["null","string"]},)"
    R"({"name":"tx_id","type":["null","string"]},{"name":"lsn","type":["null","string"]},)"
    R"({"name":"primary_keys","type":{"type":"array","items":"string"}}]}},)"
    R"({"name":"payload","type":{"type":"record","name":"payload","fields":[)"
    R"({"name":"id","type":"long"},)"
    R"({"name":"amount","type":["null",{"type":"bytes","logicalType":"decimal","precision":12,)"
    R"("scale":2}]},)"
    R"({"name":"day","type":["null",{"type":"int","logicalType":"date"}]},)"
    R"({"name":"at","type":{"type":"long","logicalType":"timestamp-micros"}},)"
    R"({"name":"blob","type":["null","bytes"]},)"
    R"({"name":"doc","type":["null",{"type":"string","logicalType":"json"}]},)"
    R"({"name":"note","type":["null","string"]}]}}]})";

struct avro_row {
  int64_t id = 0;
  std::optional<int64_t> amount_cents;  // the decimal's unscaled value
  std::optional<int32_t> day;           // days since 1970-01-01
  int64_t at_us = 0;                    // microseconds since 1970-01-01T00:00:00Z
  std::optional<std::string> blob, doc, note;
};

[[noreturn]] void avro_fail(const std::string& what) {
  throw std::runtime_error("Avro: " + what + ": " + avro_strerror());
}

avro_value_t field_of(avro_value_t& record, const char* name) {
  avro_value_t field;
  if (avro_value_get_by_name(&record, name, &field, nullptr)) avro_fail(name);
  return field;
}

void set_string(avro_value_t& v, const std::string& text, const char* what) {
  if (avro_value_set_string_len(&v, text.c_str(), text.size() + 1)) avro_fail(what);
}

// Field `name` of a ["null", T] union: its null branch, or its T branch to be set.
std::optional<avro_value_t> nullable(avro_value_t& record, const char* name, bool present) {
  avro_value_t field = field_of(record, name), branch;
  if (avro_value_set_branch(&field, present ? 1 : 0, &branch)) avro_fail(name);
  if (!present) {
    if (avro_value_set_null(&branch)) avro_fail(name);
    return std::nullopt;
  }
  return branch;
}

// One Datastream Avro event of public.<table> at `lsn`, as a container of its own.
std::string datastream_avro(avro_container_writer& w, const std::string& table,
                            const std::string& op, uint64_t lsn, const avro_row& r) {
  avro_value_t& e = w.value();
  const int64_t ts = 1'767'225'600'000 + static_cast<int64_t>(lsn);
  const std::string lsn_text = format_lsn(lsn);
  const auto set = [&](avro_value_t& rec, const char* name, const std::string& text) {
    avro_value_t v = field_of(rec, name);
    set_string(v, text, name);
  };
  const auto set_long = [&](avro_value_t& rec, const char* name, int64_t n) {
    avro_value_t v = field_of(rec, name);
    if (avro_value_set_long(&v, n)) avro_fail(name);
  };
  set(e, "stream_name", "projects/p/locations/l/streams/s");
  set(e, "read_method", "postgresql-cdc");
  set(e, "object", "public_" + table);
  set(e, "schema_key", "k");
  set(e, "uuid", "00000000-0000-4000-8000-" + std::to_string(100000000000 + lsn));
  set_long(e, "read_timestamp", 1'767'225'601'000);
  set_long(e, "source_timestamp", ts);
  avro_value_t keys = field_of(e, "sort_keys"), item, branch;
  if (avro_value_reset(&keys) || avro_value_append(&keys, &item, nullptr) ||
      avro_value_set_branch(&item, 1, &branch) || avro_value_set_long(&branch, ts) ||
      avro_value_append(&keys, &item, nullptr) || avro_value_set_branch(&item, 0, &branch) ||
      avro_value_set_string(&branch, lsn_text.c_str())) {
    avro_fail("sort_keys");
  }
  avro_value_t meta = field_of(e, "source_metadata");
  set(meta, "schema", "public");
  set(meta, "table", table);
  avro_value_t deleted = field_of(meta, "is_deleted");
  if (avro_value_set_boolean(&deleted, op == "DELETE")) avro_fail("is_deleted");
  if (auto v = nullable(meta, "change_type", true)) set_string(*v, op, "change_type");
  if (auto v = nullable(meta, "tx_id", true)) set_string(*v, std::to_string(lsn), "tx_id");
  if (auto v = nullable(meta, "lsn", true)) set_string(*v, lsn_text, "lsn");
  avro_value_t pks = field_of(meta, "primary_keys");
  if (avro_value_reset(&pks) || avro_value_append(&pks, &item, nullptr) ||
      avro_value_set_string(&item, "id")) {
    avro_fail("primary_keys");
  }

  avro_value_t p = field_of(e, "payload");
  set_long(p, "id", r.id);
  if (auto v = nullable(p, "amount", r.amount_cents.has_value())) {
    const std::string bytes = decimal_bytes(*r.amount_cents);
    if (avro_value_set_bytes(&*v, const_cast<char*>(bytes.data()), bytes.size()))
      avro_fail("amount");
  }
  if (auto v = nullable(p, "day", r.day.has_value())) {
    if (avro_value_set_int(&*v, *r.day)) avro_fail("day");
  }
  set_long(p, "at", r.at_us);
  if (auto v = nullable(p, "blob", r.blob.has_value())) {
    if (avro_value_set_bytes(&*v, const_cast<char*>(r.blob->data()), r.blob->size()))
      avro_fail("blob");
  }
  if (auto v = nullable(p, "doc", r.doc.has_value())) set_string(*v, *r.doc, "doc");
  if (auto v = nullable(p, "note", r.note.has_value())) set_string(*v, *r.note, "note");
  return w.container(w.record());
}

}  // namespace

TEST_CASE(
    "mariadb e2e: Datastream Avro containers twice and reordered give typed columns and the "
    "newest rows") {
  const std::string topic = unique_name("mdb_dsavro");
  const std::string table = unique_name("dsavro_rows");
  const std::string connector = unique_name("mdb_dsavro");
  create_topic(topic, 1);

  constexpr int64_t at = 1'783'915'259'654'321;  // 2026-07-13T04:00:59.654321Z
  constexpr int32_t day = 20'647;                // 2026-07-13
  avro_container_writer w(datastream_avro_schema);
  const auto event = [&](const std::string& op, uint64_t lsn, const avro_row& r) {
    return kafka_record{std::nullopt, datastream_avro(w, table, op, lsn, r), 0};
  };
  const std::string bytes("\x00\xff\x10\x5c", 4);
  const std::vector<kafka_record> history = {
      // Row 1: its update arrives before its insert; the update wins.
      event("UPDATE", 300,
            {1, 250, day + 1, at + 1, std::string("v2"), R"({"v": 2})", "one \xF0\x9F\x98\x80"}),
      event("INSERT", 100, {1, 123456789, day, at, std::string("v1"), R"({"v": 1})", "one"}),
      // Row 2: inserted, deleted, then a late update older than the delete: stays gone.
      event("INSERT", 110, {2, 1, day, at, std::nullopt, std::nullopt, "two"}),
      event("DELETE", 200, {2, 1, day, at, std::nullopt, std::nullopt, "two"}),
      event("UPDATE", 150, {2, 2, day, at, std::nullopt, std::nullopt, "two late"}),
      // Row 3: the edges of each type.
      event("INSERT", 120,
            {3, -50, -1, -999'999, bytes, R"({"a": [1, 2.5, null], "s": "\u00e9\"q"})", ""}),
      // Row 4: every nullable column NULL, and empty bytes (not NULL).
      event("INSERT", 130, {4, std::nullopt, std::nullopt, 0, std::string(), std::nullopt, {}}),
  };
  const std::vector<kafka_record> records = twice_reordered(history);
  produce(topic, records);

  sluice_process p(mariadb_config(connector, topic, "datastream", "", 3));
  REQUIRE_MESSAGE(mariadb_caught_up(connector, static_cast<int64_t>(records.size())), p.log());
  CHECK(p.stop() == 0);
  INFO("sluice:\n" << p.log());
  CHECK_MESSAGE(mariadb_dead_letter_count(topic) == 0, mariadb_dead_letter_reasons(topic));

  // The Avro schema's types, zoned timestamps as datetime(6) (in UTC), bytes as bytes.
  const auto types = mariadb_column_types("public", table);
  CHECK(lines(types) == lines({{"id", "bigint(20)"},
                               {"amount", "decimal(12,2)"},
                               {"day", "date"},
                               {"at", "datetime(6)"},
                               {"blob", "longblob"},
                               {"doc", "json"},
                               {"note", "longtext COLLATE utf8mb4_nopad_bin"}}));
  CHECK(cell("SELECT group_concat(column_name) FROM information_schema.key_column_usage WHERE "
             "table_schema = 'public' AND table_name = '" +
             table + "' AND constraint_name = 'PRIMARY'") == "id");

  const auto rows = rows_of(
      "SELECT id, amount, day, at, hex(`blob`), JSON_EXTRACT(doc, '$.v'), JSON_EXTRACT(doc, "
      "'$.a[1]'), JSON_UNQUOTE(JSON_EXTRACT(doc, '$.s')), note FROM `public`.`" +
      table + "` ORDER BY id");
  CHECK(rows.size() == 3);
  CHECK(rows.at("1") == std::vector<std::string>{"2.50", "2026-07-14", "2026-07-13 04:00:59.654322",
                                                 "7632", "2", "<null>", "<null>",
                                                 "one \xF0\x9F\x98\x80"});
  CHECK_FALSE(rows.contains("2"));
  CHECK(rows.at("3") == std::vector<std::string>{"-0.50", "1969-12-31",
                                                 "1969-12-31 23:59:59.000001", "00FF105C", "<null>",
                                                 "2.5", "\xC3\xA9\"q", ""});
  CHECK(rows.at("4") == std::vector<std::string>{"<null>", "<null>", "1970-01-01 00:00:00.000000",
                                                 "", "<null>", "<null>", "<null>", "<null>"});
  CHECK(cell("SELECT count(*) FROM sluice.tombstones WHERE target_schema = 'public' AND "
             "target_table = '" +
             table + "'") == "1");
  // Every offset committed, in the target's own state database.
  CHECK(cell("SELECT next_offset FROM sluice.offsets WHERE connector = '" + connector + "'") ==
        std::to_string(records.size()));
}

// --- GoldenGate Data Streams ---

}  // namespace sluice::testing
