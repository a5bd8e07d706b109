// The Debezium decoder on real connector output: tests/fixtures/debezium/*.jsonl (see the
// README there for how they were made and the source values behind them).
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "schemas/debezium/debezium_decoder.h"

namespace sluice {
namespace {

using namespace std::string_literals;

// One line of a fixture: {"key":<JSON or null>,"value":<JSON or null>}, the key and value
// embedded byte for byte as the connector wrote them.
struct fixture_message {
  std::optional<std::string> key;
  std::optional<std::string> value;  // nullopt: a tombstone
};

std::optional<std::string> json_or_null(std::string_view text) {
  if (text == "null") return std::nullopt;
  return std::string(text);
}

std::vector<fixture_message> read_fixture(const std::string& name) {
  std::ifstream in(std::string(SLUICE_SOURCE_DIR) + "/tests/fixtures/debezium/" + name + ".jsonl");
  REQUIRE_MESSAGE(in.good(), "missing fixture " << name);
  std::vector<fixture_message> messages;
  constexpr std::string_view head = R"({"key":)";
  constexpr std::string_view middle = R"(,"value":)";
  for (std::string line; std::getline(in, line);) {
    // The key is a Debezium key struct: it never holds the text ,"value": itself.
    const size_t split = line.find(middle);
    REQUIRE(line.starts_with(head));
    REQUIRE(split != std::string::npos);
    REQUIRE(line.ends_with("}"));
    const std::string_view l(line);
    messages.push_back(
        {json_or_null(l.substr(head.size(), split - head.size())),
         json_or_null(l.substr(split + middle.size(), l.size() - split - middle.size() - 1))});
  }
  return messages;
}

struct decoded_topic {
  table_catalog catalog;
  debezium_decoder decoder{catalog, {}};
  std::vector<change> changes;  // one per message but tombstones, in topic order

  explicit decoded_topic(const std::string& fixture) {
    const auto messages = read_fixture(fixture);
    REQUIRE_FALSE(messages.empty());
    int64_t offset = 0;
    for (const fixture_message& m : messages) {
      raw_message msg;
      msg.topic = fixture;
      msg.offset = kafka_offset{offset++};
      if (m.key) msg.key = *m.key;
      if (m.value) msg.value = *m.value;
      decode_output out;
      if (auto err = decoder.decode(msg, out)) FAIL(fixture << ": " << err->message);
      REQUIRE(out.changes.size() == (m.value ? 1u : 0u));
      for (change& c : out.changes)
        changes.push_back(std::move(c));
    }
  }
};

const value& column(const change& c, std::string_view name) {
  for (const column_value& cv : c.after) {
    if (cv.name == name) return cv.v;
  }
  FAIL("no column " << name);
  static const value none;
  return none;
}

// The change of row `id` with op: upserts by their position among those of the id.
const change& row(const decoded_topic& t, std::string_view id, op_kind op, size_t nth = 0) {
  for (const change& c : t.changes) {
    if (c.op == op && column(c, "id").text == id && nth-- == 0) return c;
  }
  FAIL("no change for id " << id);
  return t.changes.front();
}

// all_types' columns and the types a Debezium stream without propagated source types gives
// (source_columns.tsv has the source's).
const std::map<std::string, std::string> default_types = {
    {"id", "int64"},
    {"c_smallint", "int16"},
    {"c_integer", "int32"},
    {"c_bigint", "int64"},
    {"c_real", "float32"},
    {"c_double", "float64"},
    {"c_numeric", "decimal(12,2)"},
    {"c_numeric_u", "decimal"},
    {"c_varchar", "string"},  // Connect says string: no length without propagation
    {"c_char", "string"},
    {"c_text", "string"},
    {"c_bytea", "bytes"},
    {"c_uuid", "uuid"},
    {"c_json", "json"},
    {"c_jsonb", "json"},
    {"c_xml", "xml"},
    {"c_date", "date"},
    {"c_time3", "time(3)"},
    {"c_time6", "time(6)"},
    {"c_timetz", "timetz"},
    {"c_ts3", "timestamp(3)"},
    {"c_ts6", "timestamp(6)"},
    {"c_tstz6", "timestamptz"},
    {"c_interval", "interval"},
    {"c_bool", "boolean"},
    {"c_enum", "text"},
    {"c_bit4", "text"},
    {"c_varbit", "text"},
    {"c_int4_arr", "int32[]"},
    {"c_text_arr", "string[]"},
};

std::map<std::string, std::string> propagated_types() {
  auto types = default_types;
  types["c_varchar"] = "string(80)";
  types["c_char"] = "string(10)";
  types["c_timetz"] = "timetz(6)";
  types["c_tstz6"] = "timestamptz(6)";
  return types;
}

void check_types(const decoded_topic& t, const std::map<std::string, std::string>& expected) {
  REQUIRE(t.changes.size() == 8);
  for (const change& c : t.changes) {
    REQUIRE(c.types != nullptr);
    CHECK(c.types->columns.size() == expected.size());
    for (const auto& [name, type] : expected) {
      const column_types::column* col = c.types->find(name);
      REQUIRE_MESSAGE(col != nullptr, name);
      CHECK_MESSAGE(col->type.to_text() == type, name);
    }
  }
}

}  // namespace

TEST_CASE("Debezium fixtures: every all_types column has its Connect schema's type") {
  const decoded_topic t("default_all_types");
  check_types(t, default_types);
  for (const auto& col : t.changes.front().types->columns) {
    CHECK_MESSAGE(col.source_type.empty(), col.name);  // nothing propagated
  }
}

TEST_CASE("Debezium fixtures: propagated source types win: varchar(80) stays string(80)") {
  const decoded_topic t("propagate_all_types");
  check_types(t, propagated_types());
  const column_types& types = *t.changes.front().types;
  const std::map<std::string, std::string> spelled = {
      {"id", "INT8"},
      {"c_numeric", "NUMERIC(12,2)"},
      {"c_numeric_u", "NUMERIC"},
      {"c_varchar", "VARCHAR(80)"},
      {"c_char", "BPCHAR(10)"},
      {"c_text", "TEXT"},
      {"c_time3", "TIME(3)"},
      {"c_tstz6", "TIMESTAMPTZ(6)"},
      {"c_enum", "MOOD"},
      {"c_bit4", "BIT(4)"},
      {"c_varbit", "VARBIT(16)"},
      {"c_int4_arr", "_INT4"},
  };
  for (const auto& [name, source] : spelled) {
    CHECK_MESSAGE(types.find(name)->source_type == source, name);
  }
}

// The propagate run's snapshot records say NUMERIC length 0 for the unconstrained
// c_numeric_u, its streamed ones 131089 with scale 0: a different schema, the same types.
TEST_CASE("Debezium fixtures: the messages of one schema share one column_types") {
  for (const char* fixture : {"default_all_types", "propagate_all_types"}) {
    const decoded_topic t(fixture);
    for (const change& c : t.changes) {
      CHECK(c.types.get() == t.changes.front().types.get());
    }
  }
}

TEST_CASE("Debezium fixtures: a changed schema gets new types, the old changes keep theirs") {
  const auto messages = read_fixture("propagate_all_types");
  const std::string& original = *messages[0].value;
  std::string widened = original;  // c_varchar(80) -> (120), in before's and after's schema
  const std::string length80 = R"("__debezium.source.column.length":"80")";
  for (size_t at; (at = widened.find(length80)) != std::string::npos;) {
    widened.replace(at, length80.size(), R"("__debezium.source.column.length":"120")");
  }
  REQUIRE(widened != original);

  table_catalog catalog;
  debezium_decoder decoder(catalog, {});
  const auto decode = [&](const std::string& value) {
    raw_message msg;
    msg.topic = "t";
    msg.key = *messages[0].key;
    msg.value = value;
    decode_output out;
    REQUIRE_FALSE(decoder.decode(msg, out));
    REQUIRE(out.changes.size() == 1);
    return out.changes.front().types;
  };
  const shared_column_types first = decode(original);
  const shared_column_types wider = decode(widened);
  CHECK(wider.get() != first.get());
  CHECK(wider->find("c_varchar")->type.to_text() == "string(120)");
  CHECK(first->find("c_varchar")->type.to_text() == "string(80)");
  const shared_column_types again = decode(widened);
  CHECK(again.get() == wider.get());
  CHECK(decode(original)->find("c_varchar")->type.to_text() == "string(80)");
}

TEST_CASE("Debezium fixtures: bytea values are bytes, zero and 0xff bytes kept") {
  for (const char* fixture : {"default_all_types", "propagate_all_types"}) {
    const decoded_topic t(fixture);
    CHECK(column(row(t, "1", op_kind::upsert), "c_bytea") == value::bytes("\x01\x02\x03\x04\x05"));
    CHECK(column(row(t, "2", op_kind::upsert), "c_bytea") == value::bytes("\x00\xff\x00\xff"s));
    CHECK(column(row(t, "4", op_kind::upsert), "c_bytea") == value::bytes("\x00"s));
    CHECK(column(row(t, "5", op_kind::upsert), "c_bytea") == value::bytes("\xff"));
    CHECK(column(row(t, "1", op_kind::upsert, 1), "c_bytea") == value::bytes("\x00\xff"s));
    CHECK(column(row(t, "3", op_kind::upsert), "c_bytea") == value::null());
    CHECK(column(row(t, "2", op_kind::remove), "c_bytea") == value::bytes("\x00\xff\x00\xff"s));
  }
}

TEST_CASE("Debezium fixtures: bit strings are PostgreSQL's bit text, first bit first") {
  struct expected {
    const char* id;
    const char* bit4;
    const char* varbit_default;    // bit(n) or varbit(n)? Debezium does not say: n bits
    const char* varbit_propagate;  // VARBIT: from the highest set bit (leading zeros lost)
  };
  // Source values (integration/fixtures/debezium/*.sql): B'1010' B'110', B'0000' B'',
  // B'1111' B'1010101010101010', B'0101' B'1'.
  const expected rows[] = {
      {"1", "1010", "0000000000000110", "110"},
      {"2", "0000", "0000000000000000", ""},
      {"4", "1111", "1010101010101010", "1010101010101010"},
      {"5", "0101", "0000000000000001", "1"},
  };
  const decoded_topic plain("default_all_types");
  const decoded_topic propagated("propagate_all_types");
  for (const expected& e : rows) {
    CAPTURE(e.id);
    CHECK(column(row(plain, e.id, op_kind::upsert), "c_bit4") == value::string(e.bit4));
    CHECK(column(row(propagated, e.id, op_kind::upsert), "c_bit4") == value::string(e.bit4));
    CHECK(column(row(plain, e.id, op_kind::upsert), "c_varbit") == value::string(e.varbit_default));
    CHECK(column(row(propagated, e.id, op_kind::upsert), "c_varbit") ==
          value::string(e.varbit_propagate));
  }
}

TEST_CASE("Debezium fixtures: MicroDuration intervals are interval text PostgreSQL reads") {
  const decoded_topic t("default_all_types");
  // '1 day 02:03:04.5'; '-1 year -2 mons +3 days -04:05:06.789' (Debezium counts a year as
  // 365.25 days, a month as 30.4375); '0 seconds'; '3 mons'.
  CHECK(column(row(t, "1", op_kind::upsert), "c_interval") == value::string("1 days 02:03:04.5"));
  CHECK(column(row(t, "2", op_kind::upsert), "c_interval") ==
        value::string("-423 days -07:05:06.789"));
  CHECK(column(row(t, "4", op_kind::upsert), "c_interval") == value::string("00:00:00"));
  CHECK(column(row(t, "5", op_kind::upsert), "c_interval") == value::string("91 days 07:30:00"));
}

TEST_CASE("Debezium fixtures: other values keep their SQL text") {
  const decoded_topic t("propagate_all_types");
  const change& r1 = row(t, "1", op_kind::upsert);
  CHECK(column(r1, "c_numeric") == value::number("1234.56"));
  CHECK(column(r1, "c_varchar") == value::string("hello"));
  CHECK(column(r1, "c_time6") == value::string("13:14:15.123456"));
  CHECK(column(r1, "c_tstz6") == value::string("2024-01-15T08:30:00.000001Z"));
  CHECK(column(r1, "c_int4_arr") == value::json("[1,2,3]"));
  CHECK(column(row(t, "2", op_kind::upsert), "c_bigint") == value::number("-9223372036854775808"));
}

TEST_CASE("Debezium fixtures: bytea keys are bytes with the base64 canonical form of before") {
  for (const char* fixture : {"default_bytea_pk", "propagate_bytea_pk"}) {
    CAPTURE(fixture);
    const decoded_topic t(fixture);
    // r 00, r deadbeef, c 0001ff, u deadbeef, d 00 (the key change 00 -> 00ff), c 00ff,
    // d deadbeef; tombstones decode to nothing.
    REQUIRE(t.changes.size() == 7);
    const std::vector<std::pair<std::string, const char*>> keys = {
        {"\x00"s, "AA=="},
        {"\xde\xad\xbe\xef", "3q2+7w=="},
        {"\x00\x01\xff"s, "AAH/"},
        {"\xde\xad\xbe\xef", "3q2+7w=="},
        {"\x00"s, "AA=="},
        {"\x00\xff"s, "AP8="},
        {"\xde\xad\xbe\xef", "3q2+7w=="},
    };
    for (size_t i = 0; i < keys.size(); ++i) {
      const change& c = t.changes[i];
      REQUIRE(c.key.values.size() == 1);
      CHECK(c.key.values[0] == value::bytes(keys[i].first));
      row_key base64_key{{"id"}, {value::string(keys[i].second)}, {}};
      REQUIRE_FALSE(canonicalize_key(base64_key));
      CHECK(c.key.canonical == base64_key.canonical);  // stored tombstones still match
      REQUIRE(c.types != nullptr);
      CHECK(c.types->find("id")->type.to_text() == "bytes");
      CHECK(c.types->find("note")->type.to_text() == "string");
    }
    CHECK(t.changes[4].op == op_kind::remove);
    CHECK(t.changes[5].op == op_kind::upsert);
  }
}

TEST_CASE("Debezium fixtures: uuid keys are uuid, a TOASTed column leaves the image partial") {
  const decoded_topic t("propagate_uuid_pk");
  REQUIRE(t.changes.size() == 5);
  for (const change& c : t.changes) {
    REQUIRE(c.types != nullptr);
    CHECK(c.types->find("id")->type.to_text() == "uuid");
    CHECK(c.types->find("body")->type.to_text() == "string");
    CHECK(c.types.get() == t.changes.front().types.get());
  }
  CHECK(t.changes[3].partial);
}

}  // namespace sluice
