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

}  // namespace sluice::testing
