// Every format end to end into a real MariaDB (SPEC §6b): messages produced with a real Kafka
// client, `sluice run` as a child process writing to the `mariadb` fixture, assertions on the
// replica's rows and on sluice's state there. One scenario per format; the full matrix stays
// on PostgreSQL (formats_e2e_test.cc and the others).

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
#include "integration/support/avro_container_writer.h"
#include "integration/support/datastream_events.h"
#include "integration/support/fixture_files.h"
#include "integration/support/mariadb_replica.h"
#include "integration/support/registry_admin.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "tests/schemas/dsql_records.h"

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

// Every message once in the order given, then once more in reverse: each is delivered twice,
// and every pair of messages arrives in both orders.
std::vector<kafka_record> twice_reordered(std::vector<kafka_record> records) {
  const std::vector<kafka_record> back(records.rbegin(), records.rend());
  records.insert(records.end(), back.begin(), back.end());
  return records;
}

// One line per entry, so that a failed comparison shows both sides whole.
std::string lines(const std::map<std::string, std::string>& m) {
  std::string out;
  for (const auto& [k, v] : m)
    out += k + " " + v + "\n";
  return out;
}

// The one cell of a query, "<null>" for NULL.
std::string cell(const std::string& sql) {
  const auto rows = mariadb_query(sql);
  REQUIRE_MESSAGE(rows.size() == 1, sql);
  return rows.at(0).at(0).value_or("<null>");
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

// An unscaled decimal as Avro's decimal bytes: big-endian two's complement, shortest.
std::string decimal_bytes(int64_t unscaled) {
  std::string bytes;
  for (;;) {
    bytes.insert(bytes.begin(), static_cast<char>(unscaled & 0xff));
    const int64_t rest = unscaled >> 8;
    const bool sign = (bytes.front() & 0x80) != 0;
    if ((rest == 0 && !sign) || (rest == -1 && sign)) return bytes;
    unscaled = rest;
  }
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

namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

kafka_record gg(const std::string& text) {
  return {std::nullopt, text, 0};
}

kafka_record gg_dml(const std::string& qual_table, const std::string& op, int64_t csn,
                    const std::string& images) {
  return gg(R"({"qual_table":")" + qual_table + R"(","op_type":")" + op +
            R"(","op_ts":"2026-07-13T04:01:01.123456Z","csn":")" + std::to_string(csn) +
            R"(","xid":"x)" + std::to_string(csn) + R"(","pos":"G-AAAA=)" + std::to_string(csn) +
            R"(",)" + images + "}");
}

kafka_record gg_metadata(const std::string& qual_table, int64_t csn, const std::string& more) {
  return gg(R"({"op_type":"OBJECT_METADATA","qual_table":")" + qual_table + R"(","csn":")" +
            std::to_string(csn) + R"j(","columns":{
      "ORDER_ID":{"type":"NUMBER(10)","null":false,"key":true},
      "STATUS":{"type":"VARCHAR2(20)","null":true,"key":false},
      "AMOUNT":{"type":"NUMBER(12,2)","null":true,"key":false},
      "NOTE":{"type":"CLOB","null":true,"key":false},
      "SHIPPED":{"type":"TIMESTAMP(6) WITH TIME ZONE","null":true,"key":false},
      "TOKEN":{"type":"RAW(16)","null":true,"key":false})j" +
            more + "}}");
}

}  // namespace

TEST_CASE(
    "mariadb e2e: GoldenGate partial updates out of order keep every column's newest value; a "
    "key change moves the row; DDL is recorded") {
  const std::string schema = upper(unique_name("mdb_gg"));
  const std::string database = lower(schema);
  const std::string qual = schema + ".ORDERS";
  const std::string t = "`" + database + "`.`orders`";
  const std::string topic = unique_name("mdb_gg");
  const std::string connector = unique_name("mdb_gg");
  create_topic(topic, 1);

  const std::string alter = "ALTER TABLE " + qual + " ADD PRIORITY NUMBER(3)";
  const std::vector<kafka_record> history = {
      gg_metadata(qual, 100, ""),
      // Row 1001: two partial updates (one column each) before the older full row and the
      // insert. Each column keeps the value of the newest image that carried it.
      gg_dml(qual, "UPDATE", 105, R"("after":{"ORDER_ID":1001,"STATUS":"PAID"})"),
      gg_dml(qual, "UPDATE", 107, R"("after":{"ORDER_ID":1001,"AMOUNT":12.50})"),
      gg_dml(qual, "UPDATE", 103,
             R"("after":{"ORDER_ID":1001,"STATUS":"CHECKED","AMOUNT":11.00,"NOTE":"older full",
               "SHIPPED":"2026-07-13T06:01:01.5+02:00","TOKEN":"AP9cAQ=="})"),
      gg_dml(qual, "INSERT", 101,
             R"("after":{"ORDER_ID":1001,"STATUS":"NEW","AMOUNT":10.00,"NOTE":"first",
               "SHIPPED":null,"TOKEN":null})"),
      // Row 1002 becomes 2002 (a key change); a late partial update of 1002, older than the
      // change, must not bring 1002 back.
      gg_dml(qual, "INSERT", 110,
             R"("after":{"ORDER_ID":1002,"STATUS":"NEW","AMOUNT":1.00,"NOTE":"to move",
               "SHIPPED":null,"TOKEN":null})"),
      gg_dml(qual, "UPDATE", 120,
             R"("before":{"ORDER_ID":1002,"STATUS":"NEW","AMOUNT":1.00,"NOTE":"to move",
               "SHIPPED":null,"TOKEN":null},
               "after":{"ORDER_ID":2002,"STATUS":"MOVED","AMOUNT":1.00,"NOTE":"moved",
               "SHIPPED":null,"TOKEN":null})"),
      gg_dml(qual, "UPDATE", 115, R"("after":{"ORDER_ID":1002,"STATUS":"LATE"})"),
      // DDL: recorded; the shape comes with the next OBJECT_METADATA.
      gg(R"({"op_type":"DDL","op_ts":"2026-07-13T04:04:30.000000Z","csn":"130","ddl":{"object":)"
         R"({"catalog":"","schema":")" +
         schema + R"(","object":"ORDERS"},"statement":")" + alter + R"("}})"),
      gg_metadata(qual, 131, R"j(,"PRIORITY":{"type":"NUMBER(3)","null":true,"key":false})j"),
      gg_dml(qual, "INSERT", 132,
             R"("after":{"ORDER_ID":1003,"STATUS":"NEW","AMOUNT":3.00,"NOTE":"three",
               "SHIPPED":null,"TOKEN":null,"PRIORITY":5})"),
      // Row 1004: deleted, then a late partial update older than the delete: stays gone.
      gg_dml(qual, "INSERT", 140,
             R"("after":{"ORDER_ID":1004,"STATUS":"NEW","AMOUNT":4.00,"NOTE":"four",
               "SHIPPED":null,"TOKEN":null})"),
      gg_dml(qual, "DELETE", 150, R"("before":{"ORDER_ID":1004})"),
      gg_dml(qual, "UPDATE", 145, R"("after":{"ORDER_ID":1004,"NOTE":"zombie"})"),
  };
  const std::vector<kafka_record> records = twice_reordered(history);
  produce(topic, records);

  sluice_process p(mariadb_config(connector, topic, "goldengate", "", 3));
  REQUIRE_MESSAGE(mariadb_caught_up(connector, static_cast<int64_t>(records.size())), p.log());
  CHECK(p.stop() == 0);
  INFO("sluice:\n" << p.log());
  CHECK_MESSAGE(mariadb_dead_letter_count(topic) == 0, mariadb_dead_letter_reasons(topic));

  // OBJECT_METADATA's Oracle types; the column the DDL added typed by the next metadata.
  CHECK(lines(mariadb_column_types(database, "orders")) ==
        lines({{"order_id", "decimal(10,0)"},
               {"status", "varchar(20) COLLATE utf8mb4_nopad_bin"},
               {"amount", "decimal(12,2)"},
               {"note", "longtext COLLATE utf8mb4_nopad_bin"},
               {"shipped", "datetime(6)"},
               {"token", "longblob"},
               {"priority", "decimal(3,0)"}}));

  const auto rows = rows_of(
      "SELECT order_id, status, amount, note, shipped, hex(token), priority "
      "FROM " +
      t + " ORDER BY order_id");
  CHECK(rows.size() == 3);
  CHECK(rows.at("1001") == std::vector<std::string>{"PAID", "12.50", "older full",
                                                    "2026-07-13 04:01:01.500000", "00FF5C01",
                                                    "<null>"});
  CHECK_FALSE(rows.contains("1002"));
  CHECK(rows.at("2002") ==
        std::vector<std::string>{"MOVED", "1.00", "moved", "<null>", "<null>", "<null>"});
  CHECK(rows.at("1003") ==
        std::vector<std::string>{"NEW", "3.00", "three", "<null>", "<null>", "5"});
  CHECK_FALSE(rows.contains("1004"));

  // Per-column CSNs: 1001's status and amount came from the partial updates, its note from the
  // older full row; the row's CSN is its newest column's (the amount's, 107).
  const auto csns = mariadb_query(
      "SELECT JSON_VALUE(_sluice_col_csn, '$.status'), JSON_VALUE(_sluice_col_csn, '$.amount'), "
      "JSON_VALUE(_sluice_col_csn, '$.note'), lower(hex(_sluice_csn)) FROM " +
      t + " WHERE order_id = 1001");
  REQUIRE(csns.size() == 1);
  const std::string status = csns[0][0].value_or(""), amount = csns[0][1].value_or("");
  const std::string note = csns[0][2].value_or("");
  CHECK_FALSE(status.empty());
  CHECK(status < amount);
  CHECK(note < status);
  CHECK(amount == csns[0][3].value_or(""));

  CHECK(cell("SELECT count(*) FROM sluice.tombstones WHERE target_schema = '" + database +
             "' AND target_table = 'orders'") == "2");
  // The DDL record, once per delivery at most, with its statement as sent.
  const auto ddl = mariadb_query(
      "SELECT DISTINCT statement FROM sluice.ddl_history WHERE connector = '" + connector + "'");
  REQUIRE(ddl.size() == 1);
  CHECK(ddl[0][0].value_or("") == alter);
  CHECK(cell("SELECT key_columns FROM sluice.catalog WHERE connector = '" + connector +
             "' AND source_table = 'ORDERS'") == R"(["ORDER_ID"])");
}

// --- Debezium JSON (schemas enabled) ---

namespace {

// The row's Connect schema: code (the key, a string), amount Decimal(10,2), day Date, at
// ZonedTimestamp, meta Json, n int32.
constexpr const char* dbz_row_fields =
    R"([{"type":"string","optional":false,"field":"code"},)"
    R"({"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal",)"
    R"("version":1,"parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"amount"},)"
    R"({"type":"int32","optional":true,"name":"io.debezium.time.Date","version":1,"field":"day"},)"
    R"({"type":"string","optional":true,"name":"io.debezium.time.ZonedTimestamp","version":1,)"
    R"("field":"at"},)"
    R"({"type":"string","optional":true,"name":"io.debezium.data.Json","version":1,)"
    R"("field":"meta"},)"
    R"({"type":"int32","optional":true,"field":"n"}])";

std::string dbz_envelope_schema(const std::string& table) {
  const std::string row = R"({"type":"struct","fields":)" + std::string(dbz_row_fields) +
                          R"(,"optional":true,"name":"pg.public.)" + table + R"(.Value","field":)";
  return R"({"type":"struct","fields":[)" + row + R"("before"},)" + row + R"("after"},)" +
         R"({"type":"struct","fields":[{"type":"string","optional":false,"field":"version"},)"
         R"({"type":"string","optional":false,"field":"connector"},)"
         R"({"type":"string","optional":false,"field":"name"},)"
         R"({"type":"int64","optional":false,"field":"ts_ms"},)"
         R"({"type":"string","optional":true,"field":"snapshot"},)"
         R"({"type":"string","optional":false,"field":"db"},)"
         R"({"type":"string","optional":true,"field":"sequence"},)"
         R"({"type":"string","optional":false,"field":"schema"},)"
         R"({"type":"string","optional":false,"field":"table"},)"
         R"({"type":"int64","optional":true,"field":"txId"},)"
         R"({"type":"int64","optional":true,"field":"lsn"},)"
         R"({"type":"int64","optional":true,"field":"xmin"}],"optional":false,)"
         R"("name":"io.debezium.connector.postgresql.Source","field":"source"},)"
         R"({"type":"string","optional":false,"field":"op"},)"
         R"({"type":"int64","optional":true,"field":"ts_ms"}],"optional":false,"name":"pg.public.)" +
         table + R"(.Envelope"})";
}

// A row image: amount as Connect's Decimal (base64 of the unscaled value's bytes).
std::string dbz_row(const std::string& code, int64_t cents, int32_t day, const std::string& at,
                    const std::string& meta, int n) {
  std::string quoted_meta;
  append_json_string(quoted_meta, meta);
  return R"({"code":")" + code + R"(","amount":")" + encode_base64(decimal_bytes(cents)) +
         R"(","day":)" + std::to_string(day) + R"(,"at":")" + at + R"(","meta":)" + quoted_meta +
         R"(,"n":)" + std::to_string(n) + "}";
}

kafka_record dbz_json(const std::string& table, const std::string& code, const std::string& op,
                      const std::string& before, const std::string& after, int64_t lsn) {
  const std::string key = R"({"schema":{"type":"struct","fields":[{"type":"string",)"
                          R"("optional":false,"field":"code"}],"optional":false,)"
                          R"("name":"pg.public.)" +
                          table + R"(.Key"},"payload":{"code":")" + code + R"("}})";
  const std::string l = std::to_string(lsn);
  const std::string value =
      R"({"schema":)" + dbz_envelope_schema(table) + R"(,"payload":{"before":)" + before +
      R"(,"after":)" + after +
      R"(,"source":{"version":"2.5.0.Final","connector":"postgresql","name":"pg",)"
      R"("ts_ms":1705318200123,"snapshot":"false","db":"shop","sequence":"[\")" +
      l + R"(\",\")" + l + R"(\"]","schema":"public","table":")" + table +
      R"(","txId":555,"lsn":)" + l + R"(,"xmin":null},"op":")" + op +
      R"(","ts_ms":1705318200456}})";
  return {key, value, 0};
}

}  // namespace

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
