#include "schemas/debezium/debezium_decoder.h"

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

namespace sluice {
namespace {

using parts = std::vector<csn_part>;

// The value schema of table public.items as Debezium's JsonConverter writes it: one struct
// for before and after, with the logical types sluice decodes.
constexpr const char* items_columns = R"json([
  {"type":"int32","optional":false,"field":"id"},
  {"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,
   "parameters":{"scale":"2","connect.decimal.precision":"40"},"field":"price"},
  {"type":"struct","fields":[{"type":"int32","optional":false,"field":"scale"},
   {"type":"bytes","optional":false,"field":"value"}],"optional":true,
   "name":"io.debezium.data.VariableScaleDecimal","version":1,"field":"ratio"},
  {"type":"int32","optional":true,"name":"io.debezium.time.Date","version":1,"field":"born"},
  {"type":"int64","optional":true,"name":"io.debezium.time.MicroTimestamp","version":1,
   "field":"seen"},
  {"type":"int64","optional":true,"name":"io.debezium.time.Timestamp","version":1,
   "field":"seen_ms"},
  {"type":"string","optional":true,"name":"io.debezium.time.ZonedTimestamp","version":1,
   "field":"seen_tz"},
  {"type":"int64","optional":true,"name":"io.debezium.time.MicroTime","version":1,"field":"at"},
  {"type":"string","optional":true,"name":"io.debezium.data.Json","version":1,"field":"doc"},
  {"type":"bytes","optional":true,"field":"blob"},
  {"type":"array","items":{"type":"string","optional":true},"optional":true,"field":"tags"},
  {"type":"string","optional":true,"field":"note"}
])json";

std::string wrapped(std::string_view payload) {
  const std::string cols = items_columns;
  return R"({"schema":{"type":"struct","fields":[
    {"type":"struct","fields":)" +
         cols + R"(,"optional":true,"name":"pg.public.items.Value","field":"before"},
    {"type":"struct","fields":)" +
         cols + R"(,"optional":true,"name":"pg.public.items.Value","field":"after"},
    {"type":"struct","fields":[{"type":"string","optional":false,"field":"version"},
      {"type":"int64","optional":true,"field":"lsn"}],"optional":false,
     "name":"io.debezium.connector.postgresql.Source","field":"source"},
    {"type":"string","optional":false,"field":"op"},
    {"type":"int64","optional":true,"field":"ts_ms"}],
   "optional":false,"name":"pg.public.items.Envelope","version":1},
  "payload":)" +
         std::string(payload) + "}";
}

std::string pg_source(std::string_view lsn = "24023128",
                      std::string_view sequence = R"("[\"24023119\",\"24023128\"]")") {
  return R"({"version":"2.5.0.Final","connector":"postgresql","name":"pg","ts_ms":1705318200123,
    "snapshot":"false","db":"shop","sequence":)" +
         std::string(sequence) + R"(,"schema":"public","table":"items","txId":555,"lsn":)" +
         std::string(lsn) + R"(,"xmin":null})";
}

constexpr const char* items_after = R"({"id":7,"price":"C7c=",
  "ratio":{"scale":3,"value":"dSY="},"born":19737,"seen":1705318200123456,
  "seen_ms":1705318200123,"seen_tz":"2024-01-15T11:30:00.123456Z","at":41400123456,
  "doc":"{\"a\": [1, 2]}","blob":"AQID","tags":["x","y"],"note":"Zoë"})";

std::string pg_event(std::string_view op, std::string_view before, std::string_view after,
                     std::string_view source = {}) {
  return R"({"before":)" + std::string(before) + R"(,"after":)" + std::string(after) +
         R"(,"source":)" + (source.empty() ? pg_source() : std::string(source)) + R"(,"op":")" +
         std::string(op) +
         R"(","ts_ms":1705318200456,
    "transaction":{"id":"555:24023128","total_order":1,"data_collection_order":1}})";
}

std::string mysql_event(std::string_view op, std::string_view file, int64_t pos, int64_t row = 0,
                        std::string_view id = "42") {
  return R"({"before":null,"after":{"id":)" + std::string(id) +
         R"(,"total":29.990},
  "source":{"version":"2.5.0.Final","connector":"mysql","name":"my","ts_ms":1705318200000,
    "snapshot":"false","db":"shop","table":"orders","server_id":223344,"gtid":null,
    "file":")" +
         std::string(file) + R"(","pos":)" + std::to_string(pos) + R"(,"row":)" +
         std::to_string(row) + R"(,"thread":7,"query":null},
  "op":")" +
         std::string(op) + R"(","ts_ms":1705318200100})";
}

std::string sqlserver_event(std::string_view commit_lsn, std::string_view change_lsn,
                            int64_t serial = 2) {
  return R"({"before":null,"after":{"id":1,"v":"x"},
  "source":{"version":"2.5.0.Final","connector":"sqlserver","name":"ms","ts_ms":1705318200000,
    "snapshot":"false","db":"inv","schema":"dbo","table":"t","change_lsn":")" +
         std::string(change_lsn) + R"(","commit_lsn":")" + std::string(commit_lsn) +
         R"(","event_serial_no":)" + std::to_string(serial) + R"(},
  "op":"u","ts_ms":1705318200100})";
}

struct fixture {
  table_catalog catalog;
  debezium_decoder decoder;
  decode_output out;

  explicit fixture(debezium_options o = {}) : decoder(catalog, std::move(o)) {}

  // Decodes one message; its changes (zero or one), or the error.
  result<std::vector<change>> decode_all(std::optional<std::string_view> value,
                                         std::optional<std::string_view> key = std::nullopt,
                                         int64_t offset = 17) {
    raw_message msg;
    msg.topic = "pg.public.items";
    msg.partition = partition_id{2};
    msg.offset = kafka_offset{offset};
    msg.timestamp = timestamp_ns{1'700'000'000'000'000'000};
    msg.key = key;
    msg.value = value;
    out.clear();
    if (auto err = decoder.decode(msg, out)) {
      CHECK(out.empty());  // never a partial result
      return *err;
    }
    return std::move(out.changes);
  }

  change ok(std::string_view value, std::optional<std::string_view> key = std::nullopt) {
    auto r = decode_all(value, key);
    if (!r) FAIL_CHECK(r.err().message);
    REQUIRE(r.ok());
    REQUIRE(r->size() == 1);
    return std::move(r->front());
  }

  error fails(std::string_view value, std::optional<std::string_view> key = std::nullopt) {
    auto r = decode_all(value, key);
    REQUIRE_FALSE(r.ok());
    return r.err();
  }
};

const value* column(const change& c, std::string_view name) {
  for (const column_value& cv : c.after) {
    if (cv.name == name) return &cv.v;
  }
  return nullptr;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace

TEST_CASE(
    "Debezium: a PostgreSQL event with the schema wrapper decodes its logical types to SQL "
    "values") {
  fixture f;
  const change c = f.ok(wrapped(pg_event("c", "null", items_after)), R"({"id":7})");
  REQUIRE(c.table != nullptr);
  CHECK(c.table->name.qualified() == "shop.public.items");
  CHECK(c.op == op_kind::upsert);
  CHECK_FALSE(c.partial);
  CHECK(c.key.columns == std::vector<std::string>{"id"});
  CHECK(c.key.values == std::vector<value>{value::number("7")});
  CHECK(*column(c, "price") == value::number("29.99"));
  CHECK(*column(c, "ratio") == value::number("29.990"));
  CHECK(*column(c, "born") == value::string("2024-01-15"));
  CHECK(*column(c, "seen") == value::string("2024-01-15T11:30:00.123456"));
  CHECK(*column(c, "seen_ms") == value::string("2024-01-15T11:30:00.123"));
  CHECK(*column(c, "seen_tz") == value::string("2024-01-15T11:30:00.123456Z"));
  CHECK(*column(c, "at") == value::string("11:30:00.123456"));
  CHECK(*column(c, "doc") == value::json(R"({"a": [1, 2]})"));
  CHECK(*column(c, "blob") == value::bytes("\x01\x02\x03"));  // base64 decoded once
  CHECK(*column(c, "tags") == value::json(R"(["x","y"])"));
  CHECK(*column(c, "note") == value::string("Zoë"));
  CHECK(c.after.size() == 12);
  CHECK(c.seq.parts() ==
        parts{int64_t{1}, int64_t{24023128}, int64_t{24023119}, int64_t{24023128}});
  CHECK(c.source.tx == "555:24023128");
  CHECK(c.source.source_ts == timestamp_ns{1705318200123'000'000});
  CHECK(c.source.read == read_method::cdc);
  CHECK(c.source.origin.topic == "pg.public.items");
  CHECK(c.source.origin.partition == partition_id{2});
  CHECK(c.source.origin.offset == kafka_offset{17});
}

TEST_CASE("Debezium: the schema may follow the payload: values are decoded after both are read") {
  fixture f;
  std::string reversed = wrapped(pg_event("c", "null", R"({"id":1,"price":"C7c="})"));
  const size_t payload = reversed.find(",\n  \"payload\":");
  REQUIRE(payload != std::string::npos);
  const std::string schema_member = reversed.substr(1, payload - 1);
  const std::string payload_member = reversed.substr(payload + 4, reversed.size() - payload - 5);
  reversed = "{" + payload_member + "," + schema_member + "}";
  CHECK(*column(f.ok(reversed), "price") == value::number("29.99"));
}

TEST_CASE("Debezium: without the schema wrapper, values stay as the JSON gave them") {
  fixture f;
  const change c = f.ok(pg_event("u", "null", items_after), R"({"id":7})");
  CHECK(c.op == op_kind::upsert);
  CHECK(*column(c, "price") == value::string("C7c="));
  CHECK(*column(c, "born") == value::number("19737"));
  CHECK(*column(c, "seen") == value::number("1705318200123456"));
  CHECK(*column(c, "ratio") == value::json(R"({"scale":3,"value":"dSY="})"));
  CHECK(*column(c, "doc") == value::string(R"({"a": [1, 2]})"));
  CHECK(c.key.values == std::vector<value>{value::number("7")});
}

TEST_CASE("Debezium: Decimal values keep every digit: negative, beyond 2^64, 38 digits") {
  fixture f;
  auto with_price = [](std::string_view price) {
    return wrapped(pg_event("c", "null", R"({"id":1,"price":")" + std::string(price) + R"("})"));
  };
  CHECK(*column(f.ok(with_price("9Ek=")), "price") == value::number("-29.99"));
  CHECK(*column(f.ok(with_price("AQAAAAAAAAAB")), "price") ==
        value::number("184467440737095516.17"));
  CHECK(*column(f.ok(with_price("/v/////////7")), "price") ==
        value::number("-184467440737095516.21"));
  CHECK(*column(f.ok(with_price("CUmw9vACMxPESZBQ3jjzTg==")), "price") ==
        value::number("123456789012345678901234567890123456.78"));
  CHECK(*column(f.ok(with_price("AA==")), "price") == value::number("0.00"));

  const error bad = f.fails(with_price("not base64!"));
  CHECK(bad.code == error_code::wrong_type);
  CHECK(contains(bad.message, "price"));
}

TEST_CASE("Debezium: the unavailable placeholder, as text, as base64 or in an array, is absent") {
  fixture f;
  const change c = f.ok(wrapped(pg_event("u", "null",
                                         R"({"id":7,"note":"__debezium_unavailable_value",
      "blob":"X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==",
      "price":"X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==",
      "tags":["__debezium_unavailable_value"],"born":19737})")),
                        R"({"id":7})");
  CHECK(c.partial);
  CHECK(column(c, "note") == nullptr);
  CHECK(column(c, "blob") == nullptr);
  CHECK(column(c, "price") == nullptr);
  CHECK(column(c, "tags") == nullptr);
  CHECK(*column(c, "born") == value::string("2024-01-15"));
  CHECK(c.after.size() == 2);

  // Without the wrapper too, and with a configured placeholder.
  debezium_options o;
  o.unavailable_value = "??";
  fixture g(o);
  const change d =
      g.ok(pg_event("u", "null", R"({"id":7,"note":"??","v":"__debezium_unavailable_value"})"),
           R"({"id":7})");
  CHECK(d.partial);
  CHECK(column(d, "note") == nullptr);
  CHECK(*column(d, "v") == value::string("__debezium_unavailable_value"));
}

TEST_CASE("Debezium: key columns come from the Kafka message key, plain or schema-wrapped") {
  fixture f;
  const std::string event = pg_event("c", "null", R"({"a":1,"b":"x","c":true})");
  const change plain = f.ok(event, R"({"b":"x","a":1})");
  CHECK(plain.key.columns == std::vector<std::string>{"b", "a"});
  const change schema_wrapped = f.ok(event, R"({"schema":{"type":"struct","fields":[
      {"type":"string","optional":false,"field":"b"},
      {"type":"int32","optional":false,"field":"a"}],"optional":false,"name":"k.Key"},
    "payload":{"b":"x","a":1}})");
  CHECK(schema_wrapped.key == plain.key);
  CHECK(schema_wrapped.key.columns == plain.key.columns);

  // Key values decode with the key's schema like the image's with its own.
  const change dated = f.ok(wrapped(pg_event("c", "null", R"({"id":1,"born":19737})")),
                            R"({"schema":{"type":"struct","fields":[
      {"type":"int32","optional":true,"name":"io.debezium.time.Date","field":"born"}]},
    "payload":{"born":19737}})");
  CHECK(dated.key.values == std::vector<value>{value::string("2024-01-15")});
}

TEST_CASE("Debezium: configured key columns win over the message key, none at all is keyless") {
  fixture f;
  f.catalog.configure_key("public.items", {"b"});
  const change configured = f.ok(pg_event("c", "null", R"({"a":1,"b":"x"})"), R"({"a":1})");
  CHECK(configured.key.columns == std::vector<std::string>{"b"});
  // A key that is not JSON does not matter when configuration names the columns.
  CHECK(f.ok(pg_event("c", "null", R"({"a":1,"b":"x"})"), "not json").key == configured.key);

  fixture g;
  const change keyless = g.ok(pg_event("c", "null", R"({"a":1})"));
  CHECK(keyless.key.empty());
  CHECK(g.ok(pg_event("c", "null", R"({"a":1})"), "null").key.empty());
}

TEST_CASE(
    "Debezium: a delete takes its key from before, or from the message key when before is null") {
  fixture f;
  const change upsert = f.ok(pg_event("c", "null", R"({"id":7,"v":"x"})"), R"({"id":7})");
  const change full_before = f.ok(pg_event("d", R"({"id":7,"v":"x"})", "null"), R"({"id":7})");
  CHECK(full_before.op == op_kind::remove);
  CHECK(full_before.key == upsert.key);

  const change no_before = f.ok(pg_event("d", "null", "null"), R"({"id":7.0})");
  CHECK(no_before.op == op_kind::remove);
  CHECK(no_before.key == upsert.key);  // 7.0 and 7 are one key
  CHECK(no_before.after.empty());

  const error missing = f.fails(pg_event("d", "null", "null"), R"({"id":null})");
  CHECK(missing.code == error_code::missing_key);
}

TEST_CASE("Debezium: a key change is a delete of the old key then a create of the new one") {
  fixture f;
  const change gone = f.ok(pg_event("d", R"({"id":1,"v":"x"})", "null"), R"({"id":1})");
  CHECK(f.decode_all(std::nullopt, R"({"id":1})")->empty());  // the tombstone after it
  const change created = f.ok(pg_event("c", "null", R"({"id":2,"v":"x"})"), R"({"id":2})");
  CHECK(gone.op == op_kind::remove);
  CHECK(created.op == op_kind::upsert);
  CHECK_FALSE(gone.key == created.key);
  CHECK_FALSE(created.old_key.has_value());
}

TEST_CASE(
    "Debezium: tombstones, wrapped null payloads and logical-decoding messages decode to nothing") {
  fixture f;
  auto none = f.decode_all(std::nullopt, R"({"id":1})");
  REQUIRE(none.ok());
  CHECK(none->empty());
  auto null_payload = f.decode_all(R"({"schema":null,"payload":null})");
  REQUIRE(null_payload.ok());
  CHECK(null_payload->empty());
  auto message = f.decode_all(
      R"({"op":"m","ts_ms":1,"source":{"connector":"postgresql","lsn":5},
          "message":{"prefix":"p","content":"AQ=="}})");
  REQUIRE(message.ok());
  CHECK(message->empty());
}

TEST_CASE("Debezium: a truncate names its table and no key") {
  fixture f;
  const change t = f.ok(pg_event("t", "null", "null"));
  CHECK(t.op == op_kind::truncate);
  CHECK(t.table->name.qualified() == "shop.public.items");
  CHECK(t.key.empty());
  CHECK(t.after.empty());
  CHECK(t.seq.parts()[1] == csn_part{int64_t{24023128}});
}

TEST_CASE(
    "Debezium: PostgreSQL: LSNs compare as 64-bit numbers, then the sequence parts as numbers") {
  fixture f;
  // 0xFFFFFF0 < 0x10000008, as numbers and as "0/FFFFFF0" text.
  const change low = f.ok(pg_event("u", "null", R"({"id":1})", pg_source("268435440")));
  const change high = f.ok(pg_event("u", "null", R"({"id":1})", pg_source("268435464")));
  CHECK(low.seq < high.seq);
  const change low_text =
      f.ok(pg_event("u", "null", R"({"id":1})", pg_source(R"("0/FFFFFF0")", "null")));
  const change high_text =
      f.ok(pg_event("u", "null", R"({"id":1})", pg_source(R"("0/10000008")", "null")));
  CHECK(low_text.seq < high_text.seq);
  CHECK(high_text.seq.parts() == parts{int64_t{1}, int64_t{0x10000008}});

  // Same LSN: "[\"100\",\"9\"]" < "[\"100\",\"10\"]" (as strings it would be the other way).
  const change nine =
      f.ok(pg_event("u", "null", R"({"id":1})", pg_source("5", R"("[\"100\",\"9\"]")")));
  const change ten =
      f.ok(pg_event("u", "null", R"({"id":1})", pg_source("5", R"("[\"100\",\"10\"]")")));
  CHECK(nine.seq < ten.seq);
  const change first =
      f.ok(pg_event("u", "null", R"({"id":1})", pg_source("5", R"("[null,\"9\"]")")));
  CHECK(first.seq < nine.seq);

  const error bad = f.fails(pg_event("u", "null", R"({"id":1})", pg_source("5", R"("[\"x\"]")")));
  CHECK(bad.code == error_code::bad_csn);
  CHECK(f.fails(pg_event("u", "null", R"({"id":1})", pg_source("null"))).code ==
        error_code::bad_csn);
}

TEST_CASE("Debezium: MySQL: binlog file sequence, then position, then row order events") {
  fixture f;
  const change a = f.ok(mysql_event("c", "mysql-bin.000009", 999));
  const change b = f.ok(mysql_event("u", "mysql-bin.000010", 4));
  const change b_row1 = f.ok(mysql_event("u", "mysql-bin.000010", 4, 1));
  const change c = f.ok(mysql_event("u", "mysql-bin.000010", 120));
  CHECK(a.seq < b.seq);
  CHECK(b.seq < b_row1.seq);
  CHECK(b_row1.seq < c.seq);
  CHECK(b.seq.parts() == parts{int64_t{1}, int64_t{10}, int64_t{4}, int64_t{0}});
  // MySQL has databases, not schemas: db names the table.
  CHECK(a.table->name.database == "shop");
  CHECK(a.table->name.schema.empty());
  CHECK(a.table->name.qualified() == "shop.orders");
  CHECK(*column(a, "total") == value::number("29.990"));

  const error no_file = f.fails(mysql_event("u", "binlog", 4));
  CHECK(no_file.code == error_code::bad_csn);
}

TEST_CASE("Debezium: SQL Server: commit LSN then change LSN, as fixed-width hex text") {
  fixture f;
  const change a = f.ok(sqlserver_event("00000027:00000ac0:0003", "00000027:00000ac0:0002"));
  const change b = f.ok(sqlserver_event("00000027:00000AD0:0001", "00000027:00000ac8:0002"));
  const change c = f.ok(sqlserver_event("00000028:00000010:0001", "00000027:00000ff0:0002", 1));
  const change d = f.ok(sqlserver_event("00000028:00000010:0001", "00000027:00000ff0:0002", 2));
  CHECK(a.seq < b.seq);
  CHECK(b.seq < c.seq);
  CHECK(c.seq < d.seq);
  CHECK(b.seq.parts()[1] == csn_part{std::string("00000027:00000ad0:0001")});
  CHECK(a.table->name.qualified() == "inv.dbo.t");
}

TEST_CASE(
    "Debezium: snapshot reads order below every streamed change, and among themselves by time") {
  fixture f;
  std::string early = pg_event("r", "null", R"({"id":1})", pg_source("99999999"));
  std::string late = early;
  late.replace(late.find("1705318200123"), 13, "1705318300123");
  const change snap_early = f.ok(early);
  const change snap_late = f.ok(late);
  const change streamed = f.ok(pg_event("u", "null", R"({"id":1})", pg_source("1")));
  CHECK(snap_early.source.read == read_method::backfill);
  CHECK(snap_early.op == op_kind::upsert);
  CHECK(snap_early.seq < snap_late.seq);
  CHECK(snap_late.seq < streamed.seq);
  CHECK(snap_early.seq.parts() == parts{int64_t{0}, int64_t{1705318200123'000'000}});
}

TEST_CASE("Debezium: source timestamps come from ts_ns, else ts_us, else ts_ms") {
  fixture f;
  auto event = [](std::string_view ts) {
    return R"({"op":"c","after":{"id":1},"source":{"db":"d","table":"t",)" + std::string(ts) + "}}";
  };
  CHECK(f.ok(event(R"("ts_ms":1,"ts_us":1002,"ts_ns":1002003)")).source.source_ts ==
        timestamp_ns{1002003});
  CHECK(f.ok(event(R"("ts_ms":1,"ts_us":1002)")).source.source_ts == timestamp_ns{1002000});
  const change ms = f.ok(event(R"("ts_ms":1)"));
  CHECK(ms.source.source_ts == timestamp_ns{1000000});
  CHECK(ms.seq.parts() == parts{int64_t{1}, int64_t{1000000}});  // no position: by time
  CHECK(f.fails(event(R"("ts_ms":"soon")")).code == error_code::wrong_type);
  CHECK(f.fails(event(R"("ts_ms":9223372036854775807)")).code == error_code::wrong_type);
  CHECK(f.fails(event(R"("x":1)")).code == error_code::bad_csn);
}

TEST_CASE("Debezium: huge and precise numbers survive byte for byte") {
  fixture f;
  const change c = f.ok(
      pg_event(
          "c", "null",
          R"({"id":18446744073709551616,"big":1e400,"d38":12345678901234567890123456789012345678,
        "neg":-9223372036854775809,"f":0.1000000000000000055511151231257827})"),
      R"({"id":18446744073709551616})");
  CHECK(*column(c, "id") == value::number("18446744073709551616"));
  CHECK(*column(c, "big") == value::number("1e400"));
  CHECK(*column(c, "d38") == value::number("12345678901234567890123456789012345678"));
  CHECK(*column(c, "neg") == value::number("-9223372036854775809"));
  CHECK(*column(c, "f") == value::number("0.1000000000000000055511151231257827"));
  CHECK(c.key.values == std::vector<value>{value::number("18446744073709551616")});
}

TEST_CASE("Debezium: invalid JSON, in the value or the key, is an error, never a crash") {
  fixture f;
  const std::string good = pg_event("c", "null", R"({"id":1})");
  for (size_t cut : {size_t{0}, size_t{1}, good.size() / 3, good.size() / 2, good.size() - 1}) {
    CAPTURE(cut);
    const error e = f.fails(good.substr(0, cut));
    CHECK(e.code == error_code::invalid_json);
  }
  CHECK(f.fails(good + " {}").code == error_code::invalid_json);
  CHECK(f.fails(R"({"op":"c","after":{"id":01},"source":{"table":"t","ts_ms":1}})").code ==
        error_code::invalid_json);
  CHECK(f.fails(R"({"op":"c","after":{"id":1},"source":{"table":"t","ts_ms":1},"x":tru})").code ==
        error_code::invalid_json);
  const error key = f.fails(good, R"({"id":)");
  CHECK(key.code == error_code::invalid_json);
  CHECK(contains(key.message, "message key"));
  const error scalar_key = f.fails(good, R"("abc")");
  CHECK(scalar_key.code == error_code::wrong_type);
  CHECK(contains(scalar_key.message, "message key"));
}

TEST_CASE("Debezium: a repeated name is refused after records naming the same members") {
  // The reader skips the duplicate check of an object naming exactly the members of the last
  // one of its kind found unique: objects that only begin like it must still be checked.
  fixture f;
  const std::string src = R"({"db":"d","table":"t","ts_ms":1})";
  auto ev = [&](std::string_view body) { return "{" + std::string(body) + "}"; };
  f.ok(ev(R"("op":"c","after":{"id":1,"a":2},"source":)" + src));
  f.ok(ev(R"("op":"c","after":{"id":2,"a":3},"source":)" + src));
  for (std::string_view after : {R"({"id":1,"a":2,"a":3})", R"({"id":1,"id":2})"}) {
    CAPTURE(after);
    CHECK(f.fails(ev(R"("op":"c","after":)" + std::string(after) + R"(,"source":)" + src)).code ==
          error_code::invalid_json);
    f.ok(ev(R"("op":"c","after":{"id":3,"a":4},"source":)" + src));
  }
  CHECK(f.fails(ev(R"("op":"c","after":{"id":1,"a":2},"source":{"db":"d","table":"t","ts_ms":1,)"
                   R"("ts_ms":2})"))
            .code == error_code::invalid_json);
  CHECK(f.fails(ev(R"("op":"c","after":{"id":1,"a":2},"op":"u","source":)" + src)).code ==
        error_code::invalid_json);
}

TEST_CASE("Debezium: wrong types and missing members are errors naming what is wrong") {
  fixture f;
  const std::string src = R"({"db":"d","table":"t","ts_ms":1})";
  auto ev = [&](std::string_view body) { return "{" + std::string(body) + "}"; };
  CHECK(f.fails("[1,2]").code == error_code::wrong_type);
  CHECK(f.fails("42").code == error_code::wrong_type);
  CHECK(f.fails(ev(R"("op":1,"after":{"id":1},"source":)" + src)).code == error_code::wrong_type);
  CHECK(f.fails(ev(R"("op":"c","after":"x","source":)" + src)).code == error_code::wrong_type);
  CHECK(f.fails(ev(R"("op":"c","after":{"id":1},"source":[1])")).code == error_code::wrong_type);
  CHECK(f.fails(ev(R"("op":"c","after":{"id":1},"source":{"table":7,"ts_ms":1})")).code ==
        error_code::wrong_type);
  CHECK(f.fails(R"({"schema":null,"payload":[1]})").code == error_code::wrong_type);

  const error no_op = f.fails(ev(R"("after":{"id":1},"source":)" + src));
  CHECK(no_op.code == error_code::missing_field);
  CHECK(contains(no_op.message, "op"));
  CHECK(f.fails(ev(R"("op":"c","after":{"id":1})")).code == error_code::missing_field);
  CHECK(f.fails(ev(R"("op":"c","before":null,"source":)" + src)).code == error_code::missing_field);
  CHECK(f.fails(ev(R"("op":"c","after":{"id":1},"source":{"db":"d","ts_ms":1})")).code ==
        error_code::missing_field);
  CHECK(f.fails(ev(R"("op":"x","after":{"id":1},"source":)" + src)).code == error_code::unknown_op);
  CHECK(f.fails(ev(R"("op":"c","after":{"id":1,"id":2},"source":)" + src)).code ==
        error_code::invalid_json);
  CHECK(f.fails(ev(R"("op":"c","op":"u","after":{"id":1},"source":)" + src)).code ==
        error_code::invalid_json);

  // A logical type whose value has the wrong JSON type.
  const error date = f.fails(wrapped(pg_event("c", "null", R"({"id":1,"born":"2024-01-15"})")));
  CHECK(date.code == error_code::wrong_type);
  CHECK(contains(date.message, "born"));
  CHECK(contains(date.message, "io.debezium.time.Date"));
  CHECK(f.fails(wrapped(pg_event("c", "null", R"({"id":1,"at":-5})"))).code ==
        error_code::wrong_type);
  CHECK(f.fails(wrapped(pg_event("c", "null", R"({"id":1,"ratio":{"scale":"x"}})"))).code ==
        error_code::wrong_type);
}

TEST_CASE("Debezium: text containing \\u0000 is refused: PostgreSQL cannot store it") {
  fixture f;
  CHECK(f.fails(pg_event("c", "null", R"({"id":1,"v":"a\u0000b"})")).code ==
        error_code::nul_in_text);
  CHECK(f.fails(pg_event("c", "null", R"({"id":1,"a\u0000":"x"})")).code ==
        error_code::nul_in_text);
  CHECK(f.fails(pg_event("c", "null", R"({"id":1,"v":["\u0000"]})")).code ==
        error_code::nul_in_text);
  CHECK(f.fails(pg_event("c", "null", R"({"id":1})"), R"({"id":"\u0000"})").code ==
        error_code::nul_in_text);
}

TEST_CASE("Debezium: size, depth and column count are bounded") {
  debezium_options o;
  o.limits.max_message_bytes = 4096;
  o.limits.max_depth = 8;
  o.limits.max_columns = 4;
  fixture f(o);
  CHECK(f.fails(pg_event("c", "null", R"({"id":1,"v":")" + std::string(5000, 'x') + "\"}")).code ==
        error_code::too_large);
  CHECK(f.fails(pg_event("c", "null", R"({"id":1})"), R"({"id":")" + std::string(5000, 'k') + "\"}")
            .code == error_code::too_large);
  const std::string deep = std::string(20, '[') + std::string(20, ']');
  CHECK(f.fails(pg_event("c", "null", R"({"id":1,"v":)" + deep + "}")).code ==
        error_code::too_deep);
  CHECK(f.fails(pg_event("c", "null", R"({"a":1,"b":2,"c":3,"d":4,"e":5})")).code ==
        error_code::too_many_columns);
  const change fits = f.ok(pg_event("c", "null", R"({"a":1,"b":2,"c":3,"d":[[[1]]]})"));
  CHECK(fits.after.size() == 4);

  // Deep nesting far past simdjson's own limit is an error too.
  fixture g;
  const std::string very_deep = std::string(5000, '[') + std::string(5000, ']');
  CHECK_FALSE(g.decode_all(pg_event("c", "null", R"({"id":1,"v":)" + very_deep + "}")).ok());
}

TEST_CASE(
    "Debezium: one decoder reuses its buffers across messages of different sizes and tables") {
  fixture f;
  const change big = f.ok(
      pg_event("c", "null", R"({"id":1,"v":")" + std::string(3000, 'y') + "\"}"), R"({"id":1})");
  const change small = f.ok(mysql_event("c", "mysql-bin.000001", 4));
  const change wrapped_one = f.ok(wrapped(pg_event("c", "null", items_after)), R"({"id":7})");
  CHECK(column(big, "v")->text.size() == 3000);
  CHECK(small.table->name.qualified() == "shop.orders");
  CHECK(wrapped_one.table == big.table);
  CHECK(*column(wrapped_one, "price") == value::number("29.99"));
}

}  // namespace sluice

namespace sluice {

TEST_CASE("Debezium: a repeated schema block is read once, and its columns outlive the message") {
  fixture f;
  std::vector<change> seen;
  for (int i = 0; i < 3; ++i) {
    // Each message in a buffer of its own, freed before the next: the cached columns must not
    // point into an old message.
    auto message = std::make_unique<std::string>(wrapped(pg_event("c", "null", items_after)));
    seen.push_back(f.ok(*message, R"({"id":7})"));
  }
  for (const change& c : seen) {
    CHECK(*column(c, "price") == value::number("29.99"));
    CHECK(*column(c, "ratio") == value::number("29.990"));
    REQUIRE(c.types != nullptr);
    CHECK(c.types == seen.front().types);  // the same block: the same shared types
    CHECK(c.types->find("price")->type.to_text() ==
          seen.front().types->find("price")->type.to_text());
  }
}

TEST_CASE("Debezium: a changed schema block is read anew, an invalid one refused each time") {
  fixture f;
  const change before = f.ok(wrapped(pg_event("c", "null", items_after)), R"({"id":7})");
  std::string grown = wrapped(pg_event(
      "c", "null",
      std::string(items_after).substr(0, std::string(items_after).size() - 1) + R"(,"extra":5})"));
  const std::string note = R"("field":"note"})";
  for (size_t at = grown.find(note); at != std::string::npos; at = grown.find(note, at + 1)) {
    grown.insert(at + note.size(), R"(,{"type":"int16","optional":true,"field":"extra"})");
  }
  const change after = f.ok(grown, R"({"id":7})");
  REQUIRE(after.types != nullptr);
  CHECK(after.types != before.types);
  CHECK(after.types->find("extra") != nullptr);
  CHECK(before.types->find("extra") == nullptr);
  CHECK(*column(after, "extra") == value::number("5"));

  // A literal simdjson only checks when it is read: the block is parsed (not taken from the
  // cache by its structure) and refused, the second time too.
  std::string broken = wrapped(pg_event("c", "null", items_after));
  const std::string optional_false = R"("optional":false)";
  broken.replace(broken.find(optional_false), optional_false.size(), R"("optional":fals)");
  for (int i = 0; i < 2; ++i) {
    const error e = f.fails(broken, R"({"id":7})");
    CHECK(e.code == error_code::invalid_json);
    CHECK(e.message.find("schema") != std::string::npos);
  }
  // And the good block still decodes from the cache.
  CHECK(*column(f.ok(wrapped(pg_event("c", "null", items_after)), R"({"id":7})"), "price") ==
        value::number("29.99"));
}

TEST_CASE("Debezium: with a known schema block skipped, errors still name the message's bytes") {
  // A known block is cut out before simdjson parses the message: what follows must still be
  // checked as before, and an error must name the same byte offset as without the cache.
  const std::string good = wrapped(pg_event("c", "null", items_after));
  std::string bad_number = good;
  const size_t born = bad_number.find(R"("born":19737)");
  REQUIRE(born != std::string::npos);
  bad_number.replace(born, 12, R"("born":1973x)");
  fixture cold;
  const error uncached = cold.fails(bad_number, R"({"id":7})");
  fixture warm;
  warm.ok(good, R"({"id":7})");
  const error cached = warm.fails(bad_number, R"({"id":7})");
  CHECK(cached.code == error_code::invalid_json);
  CHECK(cached.message == uncached.message);
  CHECK(contains(cached.message, "1973x"));

  // A second "schema" member after the skipped one is still a duplicate.
  std::string twice = good;
  twice.insert(twice.rfind('}'), R"(,"schema":{"type":"struct"})");
  CHECK(warm.fails(twice, R"({"id":7})").code == error_code::invalid_json);
  CHECK(cold.fails(twice, R"({"id":7})").code == error_code::invalid_json);
  // Content after the record names its offset in the message, cached or not.
  const error trailing = warm.fails(good + " x", R"({"id":7})");
  CHECK(trailing.code == error_code::invalid_json);
  CHECK(trailing.message == cold.fails(good + " x", R"({"id":7})").message);
  CHECK(*column(warm.ok(good, R"({"id":7})"), "price") == value::number("29.99"));

  // A known block followed by a comma and the wrapper's end is invalid JSON either way: cutting
  // `"schema":<block>,` out must not leave the valid `{}` (a fuzzing finding).
  const std::string dangling = good.substr(0, good.find(R"("payload")")) + "\n   }";
  REQUIRE(dangling.find(R"("payload")") == std::string::npos);
  const error dangling_cold = fixture{}.fails(dangling, R"({"id":7})");
  CHECK(warm.fails(dangling, R"({"id":7})").code == dangling_cold.code);
  CHECK(dangling_cold.code == error_code::invalid_json);
}

}  // namespace sluice
