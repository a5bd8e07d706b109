#include "schemas/goldengate/goldengate_decoder.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace sluice {
namespace {

using parts = std::vector<csn_part>;

// Seed 003's examples as valid JSON (the seed's rules, not its typos, are what count).
constexpr const char* seed_object_metadata = R"json({
  "op_type": "OBJECT_METADATA",
  "qual_table": "SALES.ORDERS",
  "columns": {
    "ORDER_ID": {"type": "number", "null": false, "key": true},
    "STATUS": {"type": "string", "null": false, "key": false},
    "TOTAL_AMOUNT": {"type": "number", "null": true, "key": false}
  }
})json";

constexpr const char* seed_insert = R"json({
  "qual_table": "SALES.ORDERS",
  "op_type": "INSERT",
  "op_ts": "2026-07-13T04:01:01.123456Z",
  "xid": "example-transaction-1001",
  "pos": "G-QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=1001",
  "after": {
    "ORDER_ID": 1001,
    "STATUS": "NEW",
    "TOTAL_AMOUNT": 125.50
  }
})json";

constexpr const char* seed_update = R"json({
  "qual_table": "SALES.ORDERS",
  "op_type": "UPDATE",
  "op_ts": "2026-07-13T04:02:12.654321Z",
  "xid": "example-transaction-1002",
  "pos": "G-R0hJSktMTU5PUFFSU1RVVldYWVo=1002",
  "before": {"ORDER_ID": 1001, "STATUS": "NEW"},
  "after": {"ORDER_ID": 1001, "STATUS": "APPROVED"}
})json";

constexpr const char* seed_delete = R"json({
  "qual_table": "SALES.ORDERS",
  "op_type": "DELETE",
  "op_ts": "2026-07-13T04:03:15.000000Z",
  "xid": "example-transaction-1003",
  "pos": "G-SktMTU5PUFFSU1RVVldYWVo=1003",
  "before": {"ORDER_ID": 1001, "STATUS": "APPROVED"}
})json";

constexpr const char* seed_ddl = R"json({
  "op_type": "DDL",
  "op_ts": "2026-07-13T04:04:30.000000Z",
  "xid": "example-transaction-1004",
  "pos": "G-TU5PUFFSU1RVVldYWVo=1004",
  "ddl": {
    "object": {
      "catalog": "",
      "schema": "SALES",
      "object": "ORDERS"
    },
    "statement": "ALTER TABLE SALES.ORDERS ADD CUSTOMER_TIER VARCHAR2(20)"
  }
})json";

constexpr const char* seed_cloudevent = R"json({
  "specversion": "1.0",
  "type": "<runtime event type>",
  "source": "<runtime event source>",
  "id": "<runtime event id>",
  "datacontenttype": "application/json",
  "data": {
    "qual_table": "SALES.ORDERS",
    "op_type": "INSERT",
    "op_ts": "2026-07-13T04:01:01.123456Z",
    "xid": "example-transaction-1001",
    "pos": "G-QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=1001",
    "after": {"ORDER_ID": 1001, "STATUS": "NEW"}
  }
})json";

constexpr const char* stream_metadata = R"json({
  "op_type": "STREAM_METADATA",
  "producer": {"name": "Oracle GoldenGate Data Streams", "version": "23.4.0"},
  "database": {"name": "ORCLPDB", "version": "19.3", "charset": "AL32UTF8",
               "timeZone": "+00:00"},
  "machine": {"node": "ogg1", "system": "Linux", "release": "5.15", "version": "#1",
              "hardware": "x86_64"},
  "source": {"file": "ea000000001", "uri": "trail://ogg1/ea", "creationTime": "2026-07-13",
             "compatibility": 6}
})json";

constexpr const char* schema_record = R"json({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "id": "SALES.ORDERS",
  "title": "SALES.ORDERS row",
  "type": "object",
  "properties": {
    "ORDER_ID": {"type": "number"},
    "STATUS": {"type": ["string", "null"]},
    "op_type": {"type": "string"}
  },
  "required": ["ORDER_ID"],
  "additionalProperties": false
})json";

constexpr int64_t seconds_0401 = 1783915261;  // 2026-07-13T04:01:01Z
constexpr int64_t ns = 1'000'000'000;

// One topic's decoder with its catalog, fed messages one at a time.
struct gg_world {
  std::string topic = "gg.orders";
  table_catalog catalog;
  goldengate_decoder decoder;
  decode_output out;

  explicit gg_world(goldengate_options options = {}) : decoder(catalog, std::move(options)) {}

  std::optional<error> feed(std::string_view json, int64_t offset = 0, int32_t partition = 0) {
    raw_message m;
    m.topic = topic;
    m.partition = partition_id(partition);
    m.offset = kafka_offset(offset);
    m.timestamp = timestamp_ns(42);
    m.value = json;
    return decoder.decode(m, out);
  }

  // Decodes one message that must decode, and returns its only change.
  change one(std::string_view json, int64_t offset = 0) {
    out.clear();
    auto err = feed(json, offset);
    INFO((err ? err->message : std::string()));
    REQUIRE(!err);
    REQUIRE(out.changes.size() == 1);
    return out.changes[0];
  }

  // Decodes one message that must fail, and returns the error (nothing may be appended).
  error fails(std::string_view json) {
    out.clear();
    auto err = feed(json);
    REQUIRE(err);
    CHECK(out.empty());
    return *err;
  }

  table_entry* orders() { return catalog.intern(table_name{"", "SALES", "ORDERS"}); }
};

const column_value* column(const image& img, std::string_view name) {
  for (const column_value& c : img) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string record(std::string_view op, std::string_view after, std::string_view extra = "") {
  std::string out = R"({"qual_table": "SALES.ORDERS", "op_type": ")" + std::string(op) +
                    R"(", "op_ts": "2026-07-13 04:01:01.123456", "xid": "7.19.4521")";
  if (!after.empty()) out += R"(, "after": )" + std::string(after);
  if (!extra.empty()) out += ", " + std::string(extra);
  return out + "}";
}

TEST_CASE("the seed's OBJECT_METADATA teaches the catalog columns, classes and key") {
  gg_world w;
  REQUIRE(!w.feed(seed_object_metadata, 3));
  CHECK(w.out.changes.empty());
  CHECK(w.out.ddl.empty());
  REQUIRE(w.out.catalog.size() == 1);
  const catalog_update& u = w.out.catalog[0];
  CHECK(u.table == table_name{"", "SALES", "ORDERS"});
  CHECK(u.key_columns == std::vector<std::string>{"ORDER_ID"});
  REQUIRE(u.columns.size() == 3);
  CHECK(u.columns[0].name == "ORDER_ID");
  CHECK(u.columns[0].source_type == "number");
  CHECK(u.columns[0].cls == column_class::numeric);
  CHECK(!u.columns[0].nullable);
  CHECK(u.columns[0].key);
  CHECK(u.columns[1].cls == column_class::text);
  CHECK(u.columns[2].nullable);
  CHECK(u.learned_from == "goldengate OBJECT_METADATA");
  CHECK(u.seq.empty());  // neither csn nor op_ts: the last write wins
  CHECK(u.origin.topic == "gg.orders");
  CHECK(u.origin.offset.value() == 3);

  table_entry* t = w.orders();
  CHECK(t->key_columns == std::vector<std::string>{"ORDER_ID"});
  REQUIRE(t->columns.size() == 3);
  CHECK(t->key_classes() == std::vector<column_class>{column_class::numeric});
}

TEST_CASE("the seed's INSERT is an upsert keyed by ORDER_ID, numbers kept exactly") {
  gg_world w;
  REQUIRE(!w.feed(seed_object_metadata));
  const change c = w.one(seed_insert, 17);
  CHECK(c.op == op_kind::upsert);
  CHECK(c.table == w.orders());
  CHECK(c.key.columns == std::vector<std::string>{"ORDER_ID"});
  CHECK(c.key.values == std::vector<value>{value::number("1001")});
  CHECK(!c.old_key);
  CHECK(!c.partial);
  REQUIRE(c.after.size() == 3);
  CHECK(column(c.after, "TOTAL_AMOUNT")->v == value::number("125.50"));
  CHECK(column(c.after, "STATUS")->v == value::string("NEW"));
  CHECK(c.source.tx == "example-transaction-1001");
  CHECK(c.source.source_ts.value() == seconds_0401 * ns + 123'456'000);
  CHECK(c.source.read == read_method::cdc);
  CHECK(c.source.origin.topic == "gg.orders");
  CHECK(c.source.origin.offset.value() == 17);
  // No csn: op_ts, then the Kafka offset.
  CHECK(c.seq.parts() == parts{int64_t{1}, seconds_0401 * ns + 123'456'000, int64_t{17}});
}

TEST_CASE("the seed's partial UPDATE is partial and lists only the columns it carries") {
  gg_world w;
  REQUIRE(!w.feed(seed_object_metadata));
  const change c = w.one(seed_update, 18);
  CHECK(c.op == op_kind::upsert);
  CHECK(c.partial);  // TOTAL_AMOUNT keeps its stored value
  REQUIRE(c.after.size() == 2);
  CHECK(column(c.after, "STATUS")->v == value::string("APPROVED"));
  CHECK(!column(c.after, "TOTAL_AMOUNT"));
  CHECK(!c.old_key);  // same key before and after
  CHECK(c.key.values == std::vector<value>{value::number("1001")});
}

TEST_CASE("an UPDATE carries the before values of the columns its after image lacks") {
  gg_world w;
  REQUIRE(!w.feed(seed_object_metadata));
  const change c = w.one(record("UPDATE", R"({"ORDER_ID": 1001, "STATUS": "PAID"})",
                                R"("before": {"ORDER_ID": 1001, "STATUS": "NEW",
                                              "TOTAL_AMOUNT": 9.90})"));
  // The update left TOTAL_AMOUNT alone: its before value holds at the update's CSN, and
  // with every known column present the image is full.
  CHECK(!c.partial);
  REQUIRE(c.after.size() == 3);
  CHECK(column(c.after, "STATUS")->v == value::string("PAID"));
  CHECK(column(c.after, "TOTAL_AMOUNT")->v == value::number("9.90"));
}

TEST_CASE("an UPDATE of a table whose columns are unknown is partial") {
  gg_world w;
  w.catalog.configure_key("SALES.ORDERS", {"ORDER_ID"});
  const change c = w.one(record("UPDATE", R"({"ORDER_ID": 1, "STATUS": "X"})"));
  CHECK(c.partial);
  const change insert = w.one(record("INSERT", R"({"ORDER_ID": 1, "STATUS": "X"})"));
  CHECK(!insert.partial);  // inserts and upserts carry the whole row
}

TEST_CASE("the seed's DELETE deletes the before key") {
  gg_world w;
  REQUIRE(!w.feed(seed_object_metadata));
  const change c = w.one(seed_delete, 19);
  CHECK(c.op == op_kind::remove);
  CHECK(c.key.values == std::vector<value>{value::number("1001")});
  CHECK(column(c.after, "STATUS")->v == value::string("APPROVED"));  // the deleted row
  CHECK(c.seq.parts() == parts{int64_t{1}, int64_t{1783915395} * ns, int64_t{19}});
}

TEST_CASE("an UPDATE whose before key differs from its after key is a key change") {
  gg_world w;
  REQUIRE(!w.feed(seed_object_metadata));
  const change c = w.one(record("UPDATE", R"({"ORDER_ID": 1002, "STATUS": "NEW"})",
                                R"("before": {"ORDER_ID": "1001", "STATUS": "NEW"})"));
  CHECK(c.op == op_kind::upsert);
  CHECK(c.key.values == std::vector<value>{value::number("1002")});
  REQUIRE(c.old_key);
  // The before key was a string: on a numeric column it is the number 1001.
  CHECK(c.old_key->values == std::vector<value>{value::number("1001")});

  // The same key spelled differently is no key change.
  const change same = w.one(record("UPDATE", R"({"ORDER_ID": 1001.0, "STATUS": "NEW"})",
                                   R"("before": {"ORDER_ID": "1001"})"));
  CHECK(!same.old_key);
}

TEST_CASE("the seed's DDL record becomes a ddl_record and no change") {
  gg_world w;
  REQUIRE(!w.feed(seed_ddl, 20));
  CHECK(w.out.changes.empty());
  CHECK(w.out.catalog.empty());
  REQUIRE(w.out.ddl.size() == 1);
  const ddl_record& d = w.out.ddl[0];
  CHECK(d.table == table_name{"", "SALES", "ORDERS"});
  CHECK(d.statement == "ALTER TABLE SALES.ORDERS ADD CUSTOMER_TIER VARCHAR2(20)");
  CHECK(d.source_ts.value() == 1783915470 * ns);
  CHECK(d.seq.parts() == parts{int64_t{1}, int64_t{1783915470} * ns, int64_t{20}});
  CHECK(d.origin.offset.value() == 20);
}

TEST_CASE("a DDL record without ddl.object takes its table from qual_table, or has none") {
  gg_world w;
  REQUIRE(!w.feed(R"({"op_type": "DDL", "qual_table": "HR.EMP", "csn": 5,
                      "ddl": {"statement": "TRUNCATE TABLE HR.EMP"}})"));
  REQUIRE(w.out.ddl.size() == 1);
  CHECK(w.out.ddl[0].table == table_name{"", "HR", "EMP"});
  CHECK(w.out.ddl[0].seq.parts() == parts{int64_t{1}, int64_t{5}, int64_t{0}});
  w.out.clear();
  REQUIRE(!w.feed(R"({"op_type": "DDL", "ddl": {"statement": "CREATE USER X"}})"));
  REQUIRE(w.out.ddl.size() == 1);
  CHECK(w.out.ddl[0].table.qualified().empty());
  CHECK(w.out.ddl[0].seq.empty());
}

TEST_CASE("STREAM_METADATA records the producer and the source, and produces nothing") {
  gg_world w;
  REQUIRE(!w.feed(stream_metadata));
  CHECK(w.out.empty());
  const goldengate_stream_info& info = w.decoder.stream_info();
  CHECK(info.producer_name == "Oracle GoldenGate Data Streams");
  CHECK(info.producer_version == "23.4.0");
  CHECK(info.database_name == "ORCLPDB");
  CHECK(info.database_time_zone == "+00:00");
  CHECK(info.records == 1);
  REQUIRE(!w.feed(stream_metadata));
  CHECK(w.decoder.stream_info().records == 2);
}

TEST_CASE("a JSON Schema record is cached by id and never produces a change") {
  gg_world w;
  REQUIRE(!w.feed(schema_record));
  CHECK(w.out.empty());
  CHECK(w.catalog.entries().empty());  // not even a table
  REQUIRE(w.decoder.schema("SALES.ORDERS"));
  CHECK(w.decoder.schema("SALES.ORDERS")->find("draft-04") != std::string::npos);
  // Sent again (unchanged, or changed): still one schema, the newest text.
  REQUIRE(!w.feed(schema_record));
  std::string changed = schema_record;
  changed.replace(changed.find("SALES.ORDERS row"), 16, "SALES.ORDERS v2");
  REQUIRE(!w.feed(changed));
  CHECK(w.out.empty());
  CHECK(w.decoder.schema_count() == 1);
  CHECK(w.decoder.schema("SALES.ORDERS")->find("v2") != std::string::npos);
  // A schema of a generic record type, by id and properties alone.
  REQUIRE(!w.feed(R"({"id": "dml", "properties": {"op_type": {"type": "string"}}})"));
  CHECK(w.out.empty());
  CHECK(w.decoder.schema_count() == 2);
}

TEST_CASE("an OBJECT_METADATA record sent twice, on two partitions, changes nothing") {
  gg_world w;
  REQUIRE(!w.feed(seed_object_metadata, 1, 0));
  const change first = w.one(seed_insert, 5);
  const std::vector<std::string> key = w.orders()->key_columns;
  const size_t columns = w.orders()->columns.size();

  w.out.clear();
  REQUIRE(!w.feed(seed_object_metadata, 1, 1));
  REQUIRE(!w.feed(seed_object_metadata, 7, 0));
  REQUIRE(w.out.catalog.size() == 2);
  CHECK(w.out.catalog[0].columns.size() == w.out.catalog[1].columns.size());
  CHECK(w.out.catalog[0].key_columns == w.out.catalog[1].key_columns);
  CHECK(w.orders()->key_columns == key);
  CHECK(w.orders()->columns.size() == columns);
  CHECK(w.catalog.entries().size() == 1);

  const change again = w.one(seed_insert, 5);
  CHECK(again.key == first.key);
  CHECK(again.seq == first.seq);
  CHECK(again.after == first.after);
}

TEST_CASE("an OBJECT_METADATA older by csn than the one learned leaves the catalog alone") {
  gg_world w;
  REQUIRE(!w.feed(R"({"op_type": "OBJECT_METADATA", "qual_table": "SALES.ORDERS", "csn": 200,
                      "columns": {"ID": {"type": "number", "key": true},
                                  "TIER": {"type": "string"}}})"));
  REQUIRE(!w.feed(R"({"op_type": "OBJECT_METADATA", "qual_table": "SALES.ORDERS", "csn": 100,
                      "columns": {"OLD_ID": {"type": "number", "key": true}}})"));
  CHECK(w.orders()->key_columns == std::vector<std::string>{"ID"});
  CHECK(w.orders()->columns.size() == 2);
  REQUIRE(w.out.catalog.size() == 2);  // both persisted: the sink keeps the newest by csn
  CHECK(w.out.catalog[0].seq > w.out.catalog[1].seq);
}

TEST_CASE("a configured key wins over the metadata's key flags") {
  gg_world w;
  w.catalog.configure_key("SALES.ORDERS", {"STATUS"});
  REQUIRE(!w.feed(seed_object_metadata));
  CHECK(w.orders()->key_columns == std::vector<std::string>{"STATUS"});
  CHECK(w.out.catalog[0].key_columns == std::vector<std::string>{"ORDER_ID"});  // as learned
  const change c = w.one(seed_insert);
  CHECK(c.key.columns == std::vector<std::string>{"STATUS"});
  CHECK(c.key.values == std::vector<value>{value::string("NEW")});
}

TEST_CASE("keys come from the record's primary_keys, else the topic's default key columns") {
  goldengate_options o;
  o.default_key_columns = {"STATUS"};
  gg_world w(o);
  const change named = w.one(
      record("INSERT", R"({"ORDER_ID": 7, "STATUS": "NEW"})", R"("primary_keys": ["ORDER_ID"])"));
  CHECK(named.key.columns == std::vector<std::string>{"ORDER_ID"});
  const change fallback = w.one(record("INSERT", R"({"ORDER_ID": 7, "STATUS": "NEW"})"));
  CHECK(fallback.key.columns == std::vector<std::string>{"STATUS"});
}

TEST_CASE("a table with no known key decodes to keyless changes") {
  gg_world w;
  const change insert = w.one(seed_insert);
  CHECK(insert.key.empty());
  CHECK(insert.op == op_kind::upsert);
  const change remove = w.one(seed_delete);
  CHECK(remove.key.empty());
  CHECK(remove.op == op_kind::remove);
  CHECK(remove.after.size() == 2);  // the deleted row is what gets appended
}

TEST_CASE("keys sent as numbers or strings are one key on a numeric column") {
  gg_world w;
  REQUIRE(!w.feed(seed_object_metadata));
  const change a = w.one(record("INSERT", R"({"ORDER_ID": "1231535353", "STATUS": "A"})"));
  const change b = w.one(record("INSERT", R"({"ORDER_ID": 1231535353, "STATUS": "A"})"));
  const change c = w.one(record("INSERT", R"({"ORDER_ID": 1231535353.0, "STATUS": "A"})"));
  CHECK(a.key == b.key);
  CHECK(b.key == c.key);
  CHECK(a.key.values == std::vector<value>{value::number("1231535353")});
  // The image keeps what the source sent.
  CHECK(column(a.after, "ORDER_ID")->v == value::string("1231535353"));

  // On a character column, a numeric-looking string stays text.
  REQUIRE(!w.feed(R"json({"op_type": "OBJECT_METADATA", "qual_table": "SALES.CODES",
                          "columns": {"CODE": {"type": "VARCHAR2(10)", "key": true}}})json"));
  const change code = w.one(R"({"qual_table": "SALES.CODES", "op_type": "INSERT", "csn": 1,
                                "after": {"CODE": "007"}})");
  CHECK(code.key.values == std::vector<value>{value::string("007")});
  CHECK(w.out.catalog.empty());
  CHECK(w.catalog.intern(table_name{"", "SALES", "CODES"})->key_classes() ==
        std::vector<column_class>{column_class::text});
}

TEST_CASE("huge numbers survive byte for byte, in keys and images") {
  gg_world w;
  REQUIRE(!w.feed(seed_object_metadata));
  const change c = w.one(record("INSERT",
                                R"({"ORDER_ID": 9223372036854775808,
                                    "TOTAL_AMOUNT": 12345678901234567890123456789012345678,
                                    "STATUS": 1e400})"));
  CHECK(c.key.values == std::vector<value>{value::number("9223372036854775808")});
  CHECK(column(c.after, "TOTAL_AMOUNT")->v ==
        value::number("12345678901234567890123456789012345678"));
  CHECK(column(c.after, "STATUS")->v == value::number("1e400"));
}

TEST_CASE("csn orders as a number when it is one, else as a string, then the op sequence") {
  gg_world w;
  const auto seq_of = [&](std::string_view extra) {
    return w.one(record("INSERT", R"({"ID": 1})", extra), 99).seq;
  };
  // An Oracle SCN as a number or a string is the same number; 9 orders below 10.
  CHECK(seq_of(R"("csn": "15869116216871")").parts() ==
        parts{int64_t{1}, int64_t{15869116216871}, int64_t{99}});
  CHECK(seq_of(R"("csn": 15869116216871)") == seq_of(R"("csn": "15869116216871")"));
  CHECK(seq_of(R"("csn": 9)") < seq_of(R"("csn": 10)"));
  // The operation sequence orders the operations of one transaction.
  CHECK(seq_of(R"("csn": 10, "op_seq": 2)").parts() == parts{int64_t{1}, int64_t{10}, int64_t{2}});
  CHECK(seq_of(R"("csn": 10, "op_seq": 2)") < seq_of(R"("csn": 10, "op_seq": "10")"));
  // A PostgreSQL LSN is its 64-bit number; other text is a string.
  CHECK(seq_of(R"("csn": "16/B374D848")").parts() ==
        parts{int64_t{1}, int64_t{(int64_t{0x16} << 32) | 0xB374D848}, int64_t{99}});
  CHECK(seq_of(R"("csn": "000042:0000001234")").parts() ==
        parts{int64_t{1}, std::string("000042:0000001234"), int64_t{99}});
  // A csn orders records regardless of op_ts.
  CHECK(w.one(R"({"qual_table": "S.T", "op_type": "INSERT", "csn": 5,
                  "op_ts": "2030-01-01T00:00:00Z", "after": {"ID": 1}})")
            .seq < w.one(R"({"qual_table": "S.T", "op_type": "INSERT", "csn": 6,
                             "op_ts": "2020-01-01T00:00:00Z", "after": {"ID": 1}})")
                       .seq);
}

TEST_CASE("an op_ts without a zone is read in the topic's source timezone") {
  goldengate_options o;
  o.source_timezone = "+02:00";
  gg_world w(o);
  const change c = w.one(record("INSERT", R"({"ID": 1})"));
  CHECK(c.source.source_ts.value() == int64_t{1783908061} * ns + 123'456'000);
  const change iso = w.one(seed_insert);
  CHECK(iso.source.source_ts.value() == seconds_0401 * ns + 123'456'000);
  goldengate_options iana;
  iana.source_timezone = "Europe/Paris";  // in July +02:00, from the tz database
  gg_world paris(iana);
  CHECK(paris.one(seed_insert).source.source_ts.value() == seconds_0401 * ns + 123'456'000);
  goldengate_options unknown;
  unknown.source_timezone = "Europe/Pariss";
  CHECK_THROWS_AS(goldengate_decoder(w.catalog, unknown), std::invalid_argument);
}

TEST_CASE("a CloudEvents envelope is unwrapped, its data an object or a JSON string") {
  gg_world w;
  REQUIRE(!w.feed(seed_object_metadata));
  const change c = w.one(seed_cloudevent, 4);
  CHECK(c.key.values == std::vector<value>{value::number("1001")});
  CHECK(column(c.after, "STATUS")->v == value::string("NEW"));
  CHECK(c.source.tx == "example-transaction-1001");

  // data as a JSON string, specversion after it.
  const change s = w.one(
      R"({"id": "e1", "data": "{\"qual_table\": \"SALES.ORDERS\", \"op_type\": \"DELETE\", \"csn\": 12, \"before\": {\"ORDER_ID\": 1001}}", "specversion": "1.0"})");
  CHECK(s.op == op_kind::remove);
  CHECK(s.key.values == std::vector<value>{value::number("1001")});
  CHECK(s.seq.parts() == parts{int64_t{1}, int64_t{12}, int64_t{0}});

  // A schema record inside an envelope is still only cached.
  w.out.clear();
  REQUIRE(!w.feed(R"({"specversion": "1.0", "data": {"$schema": "x", "id": "S"}})"));
  CHECK(w.out.changes.size() == 0);
  CHECK(w.decoder.schema("S"));

  CHECK(w.fails(R"({"specversion": "1.0", "id": "e2"})").code == error_code::missing_field);
  CHECK(w.fails(R"({"specversion": "1.0", "data": 5})").code == error_code::wrong_type);
  CHECK(w.fails(R"({"specversion": "1.0", "data": "{\"qual_table\": "})").code ==
        error_code::invalid_json);
}

TEST_CASE("field names and op strings are configurable") {
  goldengate_options o;
  o.field_names = {{"qual_table", "table"}, {"op_type", "optype"}, {"op_ts", "ts"},
                   {"after", "new"},        {"before", "old"},     {"csn", "scn"}};
  o.op_names = {{"INSERT", "I"}, {"UPDATE", "U"}, {"DELETE", "D"}};
  gg_world w(o);
  REQUIRE(!w.feed(R"({"optype": "OBJECT_METADATA", "table": "SALES.ORDERS",
                      "columns": {"ORDER_ID": {"type": "number", "key": true}}})"));
  const change i = w.one(R"({"table": "SALES.ORDERS", "optype": "I", "scn": 7,
                             "new": {"ORDER_ID": 1, "after": "a column"}})");
  CHECK(i.op == op_kind::upsert);
  CHECK(i.seq.parts() == parts{int64_t{1}, int64_t{7}, int64_t{0}});
  CHECK(column(i.after, "after")->v == value::string("a column"));
  const change u = w.one(R"({"table": "SALES.ORDERS", "optype": "U", "ts": "2026-07-13",
                             "old": {"ORDER_ID": 1}, "new": {"ORDER_ID": 2}})");
  REQUIRE(u.old_key);
  const change d = w.one(R"({"table": "SALES.ORDERS", "optype": "D", "scn": 9,
                             "old": {"ORDER_ID": 2}})");
  CHECK(d.op == op_kind::remove);

  // Renamed away, the default strings mean nothing.
  const error e = w.fails(R"({"table": "SALES.ORDERS", "optype": "INSERT", "scn": 1,
                              "new": {"ORDER_ID": 1}})");
  CHECK(e.code == error_code::unknown_op);
  CHECK(e.message.find("\"I\"") != std::string::npos);
  const error missing = w.fails(R"({"qual_table": "SALES.ORDERS", "optype": "I", "scn": 1})");
  CHECK(missing.code == error_code::missing_field);
  CHECK(missing.message.find("\"table\" (qual_table)") != std::string::npos);
}

TEST_CASE("invalid field names and op strings are refused at start-up") {
  using map = std::map<std::string, std::string>;
  CHECK(goldengate_names::check({{"table", "T"}}, {}));  // not a canonical field
  CHECK(goldengate_names::check({}, {{"MERGE", "M"}}));  // not a canonical op
  CHECK(goldengate_names::check({{"xid", ""}}, {}));     // empty
  CHECK(goldengate_names::check({{"xid", "pos"}}, {}));  // two fields sent as one name
  CHECK(goldengate_names::check({}, {{"INSERT", "UPDATE"}}));
  CHECK(goldengate_names::check({{"after", "columns"}}, {}));  // a structural member
  CHECK(goldengate_names::check({}, {{"DELETE", "DDL"}}));     // another record kind's op
  CHECK(!goldengate_names::check(map{{"xid", "txid"}}, map{{"UPSERT", "M"}}));
  goldengate_options o;
  o.op_names = {{"INSERT", "DDL"}};
  CHECK(goldengate_decoder::check(o));
  table_catalog catalog;
  CHECK_THROWS_AS(goldengate_decoder(catalog, o), std::invalid_argument);
}

TEST_CASE("qual_table may name a catalog and quote its parts") {
  gg_world w;
  const change c = w.one(R"({"qual_table": "PDB1.SALES.ORDERS", "op_type": "INSERT", "csn": 1,
                             "after": {"ID": 1}})");
  CHECK(c.table->name == table_name{"PDB1", "SALES", "ORDERS"});
  const change q = w.one(R"({"qual_table": "\"Sales\".\"My.Table\"", "op_type": "INSERT",
                             "csn": 1, "after": {"ID": 1}})");
  CHECK(q.table->name == table_name{"", "Sales", "My.Table"});
}

TEST_CASE("a Kafka tombstone decodes to nothing") {
  gg_world w;
  raw_message m;
  m.topic = w.topic;
  CHECK(!w.decoder.decode(m, w.out));
  CHECK(w.out.empty());
}

TEST_CASE("hostile GoldenGate records are errors that say what is wrong, and append nothing") {
  gg_world w;
  REQUIRE(!w.feed(seed_object_metadata));
  w.out.clear();
  struct hostile {
    std::string json;
    error_code code;
    std::string says;
  };
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  const std::vector<hostile> cases = {
      {std::string(seed_insert).substr(0, 120), error_code::invalid_json, "invalid JSON"},
      {"", error_code::invalid_json, "invalid JSON"},
      {"[1, 2]", error_code::wrong_type, "JSON object"},
      {"\"INSERT\"", error_code::wrong_type, "JSON object"},
      {R"({"op_type": "INSERT", "csn": 1} trailing)", error_code::invalid_json, "invalid JSON"},
      {R"({"op_type": "INSERT", "csn": 1, "after": {"ORDER_ID": 1}})", error_code::missing_field,
       "qual_table"},
      {R"({"qual_table": 5, "op_type": "INSERT", "csn": 1, "after": {"ORDER_ID": 1}})",
       error_code::wrong_type, "qual_table"},
      {R"({"qual_table": "A.B.C.D", "op_type": "INSERT", "csn": 1, "after": {"ID": 1}})",
       error_code::bad_identifier, "three parts"},
      {R"({"qual_table": "SALES..ORDERS", "op_type": "INSERT", "csn": 1, "after": {"ID": 1}})",
       error_code::bad_identifier, "empty part"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "MERGE", "csn": 1})", error_code::unknown_op,
       "MERGE"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": 1, "csn": 1})", error_code::wrong_type,
       "op_type"},
      {R"({"qual_table": "SALES.ORDERS", "after": {"ORDER_ID": 1}})", error_code::missing_field,
       "op_type"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": 1, "after": "ORDER_ID=1"})",
       error_code::wrong_type, "\"after\" must be an object"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": 1, "after": null})",
       error_code::missing_field, "INSERT record has no \"after\""},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "UPDATE", "csn": 1, "before": {"ORDER_ID": 1}})",
       error_code::missing_field, "UPDATE record has no \"after\""},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "DELETE", "csn": 1, "after": {"ORDER_ID": 1}})",
       error_code::missing_field, "DELETE record has no \"before\""},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "after": {"ORDER_ID": 1}})",
       error_code::bad_csn, "cannot be ordered"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": {"scn": 1},
           "after": {"ORDER_ID": 1}})",
       error_code::bad_csn, "csn"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "op_ts": "yesterday",
           "after": {"ORDER_ID": 1}})",
       error_code::wrong_type, "op_ts"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": 1, "xid": [1],
           "after": {"ORDER_ID": 1}})",
       error_code::wrong_type, "xid"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": 1, "pos": {"a": 1},
           "after": {"ORDER_ID": 1}})",
       error_code::wrong_type, "pos"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": 1, "after": {"STATUS": "A"}})",
       error_code::missing_key, "ORDER_ID"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": 1,
           "after": {"ORDER_ID": null}})",
       error_code::missing_key, "null"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": 1,
           "after": {"ORDER_ID": "abc"}})",
       error_code::wrong_type, "not a number"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": 1,
           "after": {"ORDER_ID": 1, "NOTE": "a\u0000b"}})",
       error_code::nul_in_text, "\\u0000"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": 1,
           "after": {"ORDER_ID": 1, "N\u0000TE": 1}})",
       error_code::nul_in_text, "\\u0000"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": 1,
           "after": {"ORDER_ID": 1, "DEEP": )" +
           deep + "}}",
       error_code::too_deep, "nesting"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": 1,
           "after": {"ORDER_ID": 1, "ORDER_ID": 2}})",
       error_code::invalid_json, "twice"},
      {R"({"qual_table": "SALES.ORDERS", "qual_table": "SALES.X", "op_type": "INSERT",
           "csn": 1, "after": {"ORDER_ID": 1}})",
       error_code::invalid_json, "twice"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": 1, "after": {"ORDER_ID": 1},
           "tokens": {"a": 1}, "tokens": {}})",
       error_code::invalid_json, "twice"},
      {R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": 1, "after": {"ORDER_ID": 1},
           "primary_keys": [1]})",
       error_code::wrong_type, "primary_keys"},
      {R"({"op_type": "OBJECT_METADATA", "qual_table": "SALES.ORDERS"})", error_code::missing_field,
       "columns"},
      {R"({"op_type": "OBJECT_METADATA", "qual_table": "SALES.ORDERS", "columns": {}})",
       error_code::missing_field, "no columns"},
      {R"({"op_type": "OBJECT_METADATA", "qual_table": "SALES.ORDERS", "columns": ["ID"]})",
       error_code::wrong_type, "columns"},
      {R"({"op_type": "OBJECT_METADATA", "qual_table": "SALES.ORDERS",
           "columns": {"ID": {"type": "number", "key": "yes"}}})",
       error_code::wrong_type, "columns \"ID\".key must be a boolean"},
      {R"({"op_type": "OBJECT_METADATA", "qual_table": "SALES.ORDERS", "columns": {"ID": 1}})",
       error_code::wrong_type, "must be an object"},
      {R"({"op_type": "OBJECT_METADATA", "columns": {"ID": {"type": "number"}}})",
       error_code::missing_field, "qual_table"},
      {R"({"op_type": "DDL", "csn": 1})", error_code::missing_field, "ddl"},
      {R"({"op_type": "DDL", "csn": 1, "ddl": {"object": {"schema": "S", "object": "T"}}})",
       error_code::missing_field, "ddl.statement"},
      {R"({"op_type": "DDL", "csn": 1, "ddl": {"statement": 5}})", error_code::wrong_type,
       "ddl.statement"},
      {R"({"op_type": "DDL", "csn": 1, "ddl": "ALTER TABLE X"})", error_code::wrong_type,
       "ddl must be an object"},
  };
  for (const hostile& h : cases) {
    INFO(h.json);
    const error e = w.fails(h.json);
    INFO(e.message);
    CHECK(e.code == h.code);
    CHECK(e.message.find(h.says) != std::string::npos);
  }
  // Nothing was learned or cached from any of them.
  CHECK(w.decoder.schema_count() == 0);
  CHECK(w.orders()->key_columns == std::vector<std::string>{"ORDER_ID"});
}

TEST_CASE("size and column limits bound a GoldenGate record") {
  goldengate_options o;
  o.limits.max_message_bytes = 200;
  o.limits.max_columns = 2;
  gg_world w(o);
  CHECK(w.fails(std::string(seed_insert)).code == error_code::too_large);
  CHECK(w.fails(R"({"qual_table": "S.T", "op_type": "INSERT", "csn": 1,
                    "after": {"A": 1, "B": 2, "C": 3}})")
            .code == error_code::too_many_columns);
  CHECK(w.fails(R"({"op_type": "OBJECT_METADATA", "qual_table": "S.T",
                    "columns": {"A": {}, "B": {}, "C": {}}})")
            .code == error_code::too_many_columns);
  w.one(R"({"qual_table": "S.T", "op_type": "INSERT", "csn": 1, "after": {"A": 1, "B": 2}})");
}

}  // namespace
}  // namespace sluice

namespace sluice {

TEST_CASE("an image repeating a name is caught after images whose names were unique") {
  gg_world w;
  REQUIRE(!w.feed(seed_object_metadata));
  for (int round = 0; round < 2; ++round) {
    w.one(record("INSERT", R"({"ORDER_ID": 1, "STATUS": "A"})"));
    w.one(record("INSERT", R"({"ORDER_ID": 2, "STATUS": "B"})"));
    for (std::string_view after :
         {R"({"ORDER_ID": 3, "ORDER_ID": 4})", R"({"ORDER_ID": 3, "STATUS": "C", "STATUS": "D"})",
          R"({"STATUS": "E", "STATUS": "F"})"}) {
      INFO(after);
      const error e = w.fails(record("INSERT", after));
      CHECK(e.code == error_code::invalid_json);
      CHECK(e.message.find("twice") != std::string::npos);
    }
  }
  // A CloudEvents envelope, read again after the one-pass attempt found its specversion.
  const change c = w.one(R"({"id": "x", "specversion": "1.0", "data": )" +
                         record("INSERT", R"({"ORDER_ID": 5, "STATUS": "G"})") + "}");
  CHECK(c.key.values == std::vector<value>{value::number("5")});
}

}  // namespace sluice

namespace sluice {
namespace {

constexpr const char* oracle_metadata = R"json({
  "op_type": "OBJECT_METADATA", "qual_table": "SALES.ORDERS", "csn": 10,
  "columns": {
    "ORDER_ID": {"type": "NUMBER(10)", "null": false, "key": true},
    "TOTAL": {"type": "NUMBER(12,2)"},
    "STATUS": {"type": "VARCHAR2(20 BYTE)"},
    "CREATED": {"type": "DATE"},
    "UPDATED": {"type": "TIMESTAMP(6) WITH TIME ZONE"},
    "NOTE": {"type": "CLOB"},
    "PHOTO": {"type": "BLOB"},
    "RATIO": {"type": "BINARY_DOUBLE"}
  }
})json";

std::string types_text(const column_types& types) {
  std::string out;
  for (const column_types::column& c : types.columns)
    out += c.name + ":" + c.type.to_text() + " ";
  return out;
}

std::string insert_at(int csn) {
  return R"({"qual_table": "SALES.ORDERS", "op_type": "INSERT", "csn": )" + std::to_string(csn) +
         R"(, "after": {"ORDER_ID": )" + std::to_string(csn) + R"(, "STATUS": "NEW"}})";
}

TEST_CASE("OBJECT_METADATA's Oracle types become the catalog's portable types") {
  gg_world w;
  REQUIRE(!w.feed(oracle_metadata));
  const table_entry& t = *w.orders();
  REQUIRE(t.types);
  CHECK(types_text(*t.types) ==
        "ORDER_ID:decimal(10,0) TOTAL:decimal(12,2) STATUS:string(20) CREATED:timestamp(0) "
        "UPDATED:timestamptz(6) NOTE:string PHOTO:bytes RATIO:float64 ");
  CHECK(t.types->find("TOTAL")->source_type == "NUMBER(12,2)");
  REQUIRE(t.columns.size() == 8);
  CHECK(t.columns[1].type == column_type{type_id::decimal, 12, 2});
  // The catalog update carries them too (persisted, printed by `sluice decode`).
  REQUIRE(w.out.catalog.size() == 1);
  CHECK(w.out.catalog[0].columns[2].type.to_text() == "string(20)");
}

TEST_CASE("changes share the table's type snapshot until new metadata changes the types") {
  gg_world w;
  REQUIRE(!w.feed(oracle_metadata));
  const shared_column_types first = w.orders()->types;
  REQUIRE(first);
  const change a = w.one(insert_at(11));
  const change b = w.one(insert_at(12));
  CHECK(a.types == first);  // the same object, not a copy per message
  CHECK(b.types == first);
  // The same metadata again (another partition, a re-send): the snapshot stays.
  REQUIRE(!w.feed(oracle_metadata, 1, 1));
  CHECK(w.orders()->types == first);
  CHECK(w.one(insert_at(13)).types == first);
  // A widened column: a new snapshot, which the following changes carry; earlier changes
  // keep theirs.
  std::string widened = oracle_metadata;
  widened.replace(widened.find("VARCHAR2(20 BYTE)"), 17, "VARCHAR2(80 BYTE)");
  widened.replace(widened.find("\"csn\": 10"), 9, "\"csn\": 20");
  REQUIRE(!w.feed(widened));
  const shared_column_types second = w.orders()->types;
  REQUIRE(second);
  CHECK(second != first);
  CHECK(second->find("STATUS")->type.to_text() == "string(80)");
  CHECK(first->find("STATUS")->type.to_text() == "string(20)");
  CHECK(w.one(insert_at(21)).types == second);
}

TEST_CASE("a change of a table without metadata or schema carries no types") {
  gg_world w;
  CHECK(!w.one(insert_at(1)).types);
}

constexpr const char* orders_schema = R"json({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "id": "SALES.ORDERS", "title": "SALES.ORDERS", "type": "object",
  "properties": {
    "qual_table": {"type": "string"}, "op_type": {"type": "string"},
    "ORDER_ID": {"type": "integer"},
    "STATUS": {"type": ["string", "null"], "maxLength": 20},
    "TOTAL_AMOUNT": {"type": ["number", "null"]},
    "SHIPPED_AT": {"type": ["string", "null"], "format": "date-time"}
  }
})json";

TEST_CASE("the table's JSON Schema record refines OBJECT_METADATA's primitive types") {
  gg_world w;
  REQUIRE(!w.feed(orders_schema));
  REQUIRE(!w.feed(seed_object_metadata));
  const table_entry& t = *w.orders();
  REQUIRE(t.types);
  CHECK(types_text(*t.types) == "ORDER_ID:decimal STATUS:string(20) TOTAL_AMOUNT:decimal ");
  CHECK(t.columns[0].source_type == "number");  // what the metadata said, kept
  // A source type name is not refined: it says more than the schema.
  gg_world oracle;
  REQUIRE(!oracle.feed(orders_schema));
  REQUIRE(!oracle.feed(oracle_metadata));
  CHECK(oracle.orders()->types->find("ORDER_ID")->type.to_text() == "decimal(10,0)");
}

TEST_CASE("without the table's JSON Schema record, primitive types stay the widest") {
  gg_world w;
  REQUIRE(!w.feed(seed_object_metadata));
  CHECK(types_text(*w.orders()->types) == "ORDER_ID:decimal STATUS:string TOTAL_AMOUNT:decimal ");
}

TEST_CASE("a JSON Schema record sent after the metadata retypes the table and is persisted") {
  gg_world w;
  REQUIRE(!w.feed(seed_object_metadata));
  const shared_column_types before = w.orders()->types;
  const change a = w.one(insert_at(5));
  CHECK(a.types == before);
  w.out.clear();
  REQUIRE(!w.feed(orders_schema));
  CHECK(w.out.changes.empty());
  REQUIRE(w.out.catalog.size() == 1);
  CHECK(w.out.catalog[0].columns[0].type.to_text() == "decimal");
  CHECK(w.orders()->types != before);
  CHECK(w.one(insert_at(6)).types == w.orders()->types);
  // The same schema again changes nothing.
  w.out.clear();
  const shared_column_types now = w.orders()->types;
  REQUIRE(!w.feed(orders_schema));
  CHECK(w.out.empty());
  CHECK(w.orders()->types == now);
}

TEST_CASE("a table described only by its JSON Schema record gets the schema's types") {
  gg_world w;
  REQUIRE(!w.feed(orders_schema));
  const change c = w.one(insert_at(1));
  REQUIRE(c.types);
  CHECK(types_text(*c.types) ==
        "ORDER_ID:decimal STATUS:string(20) TOTAL_AMOUNT:decimal SHIPPED_AT:timestamp ");
  CHECK(w.orders()->columns.empty());  // types are not a shape: nothing learned
  CHECK(w.one(insert_at(2)).types == c.types);
}

}  // namespace
}  // namespace sluice
