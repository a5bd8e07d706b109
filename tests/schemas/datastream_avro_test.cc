// The Datastream decoder on Avro object containers written by a real Avro writer (fastavro:
// tests/fixtures/datastream_avro/generate.py), checked against their JSON twins.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/base64.h"
#include "schemas/avro/avro_container.h"
#include "schemas/common/format_detector.h"
#include "schemas/datastream/datastream_decoder.h"
#include "tests/schemas/avro_fixture.h"

namespace sluice {
namespace {

std::string fixture(const std::string& name) {
  return avro_fixture(name);
}

std::vector<std::string> lines(const std::string& name) {
  std::istringstream in(fixture(name));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

struct fixture_decoder {
  table_catalog catalog;
  datastream_decoder decoder{catalog, datastream_options{}};
  decode_output out;

  std::optional<error> decode(std::string_view bytes, int64_t offset = 7) {
    raw_message msg;
    msg.topic = "ds";
    msg.offset = kafka_offset{offset};
    msg.value = bytes;
    return decoder.decode(msg, out);
  }
};

const value* column(const change& c, std::string_view name) {
  for (const column_value& v : c.after) {
    if (v.name == name) return &v.v;
  }
  return nullptr;
}

std::string text_of(const change& c, std::string_view name) {
  const value* v = column(c, name);
  return v ? v->text : "<absent>";
}

column_type type_of(const change& c, std::string_view name) {
  REQUIRE(c.types);
  const column_types::column* col = c.types->find(name);
  REQUIRE(col);
  return col->type;
}

}  // namespace

TEST_CASE("Datastream Avro: a MySQL container of several blocks decodes every record in order") {
  fixture_decoder f;
  const std::string bytes = fixture("mysql_orders.avro");
  REQUIRE(is_avro_container(bytes));
  REQUIRE_FALSE(f.decode(bytes));
  REQUIRE(f.out.changes.size() == 5);
  const auto& c = f.out.changes;
  CHECK(c[0].table->name.qualified() == "shop.orders");
  CHECK(c[0].op == op_kind::upsert);
  CHECK(c[0].key.columns == std::vector<std::string>{"id"});
  CHECK(c[0].key.values[0].text == "1");
  CHECK(c[2].op == op_kind::remove);  // UPDATE-DELETE: the old key of a key change
  CHECK(c[2].key.values[0].text == "2");
  CHECK(c[3].op == op_kind::upsert);  // UPDATE-INSERT
  CHECK(c[4].op == op_kind::remove);
  // UPDATE-DELETE and UPDATE-INSERT are one binlog event: the same position.
  for (size_t i = 1; i < c.size(); ++i)
    CHECK(c[i - 1].seq <= c[i].seq);
  CHECK(c[2].seq == c[3].seq);
  CHECK(c[0].seq.parts() == std::vector<csn_part>{int64_t{1}, int64_t{10}, int64_t{100}});
  CHECK(c[0].source.read == read_method::cdc);
  CHECK(c[0].source.origin.offset == kafka_offset{7});
}

TEST_CASE("Datastream Avro: logical types become the values and column types PostgreSQL reads") {
  fixture_decoder f;
  REQUIRE_FALSE(f.decode(fixture("mysql_orders.avro")));
  const change& first = f.out.changes[0];
  CHECK(text_of(first, "total") == "29.99");
  CHECK(column(first, "total")->kind == value_kind::number);
  CHECK(text_of(first, "ordered_on") == "2026-07-13");
  CHECK(text_of(first, "created_at") == "2026-07-13T04:00:59.654321Z");
  CHECK(text_of(first, "quantity") == "1000000000001");
  CHECK(column(first, "receipt")->kind == value_kind::bytes);
  CHECK(text_of(first, "receipt") == std::string("\x00\x01\xff", 3));
  CHECK(column(f.out.changes[1], "customer")->is_null());  // a nullable union's null
  CHECK(text_of(f.out.changes[1], "total") == "-0.50");
  CHECK(text_of(f.out.changes[3], "ordered_on") == "1969-12-31");

  CHECK(type_of(first, "id").to_text() == "int32");
  CHECK(type_of(first, "customer").to_text() == "string");
  CHECK(type_of(first, "total").to_text() == "decimal(10,2)");
  CHECK(type_of(first, "ordered_on").to_text() == "date");
  CHECK(type_of(first, "created_at").to_text() == "timestamptz(6)");
  CHECK(type_of(first, "quantity").to_text() == "int64");
  CHECK(type_of(first, "ratio").to_text() == "float64");
  CHECK(type_of(first, "paid").to_text() == "boolean");
  CHECK(type_of(first, "receipt").to_text() == "bytes");
  // One schema, one column_types: the records share it.
  CHECK(f.out.changes[0].types == f.out.changes[4].types);
}

TEST_CASE("Datastream Avro: PostgreSQL source with uuid, millisecond timestamps and times") {
  fixture_decoder f;
  REQUIRE_FALSE(f.decode(fixture("postgresql_items.avro")));
  const auto& c = f.out.changes;
  REQUIRE(c.size() == 4);
  CHECK(c[0].table->name.qualified() == "public.items");
  CHECK(c[0].key.values[0].text == "00000000-0000-0000-0000-000000001234");
  CHECK(text_of(c[0], "weight") == "0.125");
  CHECK(text_of(c[0], "starts") == "08:30:00.00025");
  CHECK(text_of(c[0], "updated") == "2026-07-13T05:00:00Z");
  CHECK(text_of(c[1], "label") == "nut \xc3\xa9");
  CHECK(c[3].op == op_kind::remove);
  CHECK(c[0].source.tx == "771");
  CHECK(type_of(c[0], "item_id").to_text() == "uuid");
  CHECK(type_of(c[0], "weight").to_text() == "decimal(12,3)");
  CHECK(type_of(c[0], "updated").to_text() == "timestamptz(3)");
  CHECK(type_of(c[0], "starts").to_text() == "time(6)");
  for (size_t i = 1; i < c.size(); ++i)
    CHECK(c[i - 1].seq < c[i].seq);
}

TEST_CASE("Datastream Avro: Oracle events order by scn and take configured keys") {
  fixture_decoder f;
  f.catalog.configure_key("ORCL.HR.EMP", {"EMPNO"});
  REQUIRE_FALSE(f.decode(fixture("oracle_emp.avro")));
  const auto& c = f.out.changes;
  REQUIRE(c.size() == 3);
  CHECK(c[0].key.values[0].text == "7499");
  CHECK(c[0].seq.parts()[1] == csn_part{int64_t{9001}});
  CHECK(text_of(c[1], "SAL") == "1700.50");
  CHECK(text_of(c[0], "HIREDATE") == "1981-02-20T09:15:30.5");
  CHECK(type_of(c[0], "HIREDATE").to_text() == "timestamp(6)");
  CHECK(c[2].op == op_kind::remove);
  CHECK(c[0].source.tx == "5.12.991");
}

TEST_CASE("Datastream Avro: backfill records are backfill changes") {
  fixture_decoder f;
  REQUIRE_FALSE(f.decode(fixture("mysql_backfill.avro")));
  REQUIRE(f.out.changes.size() == 3);
  for (const change& c : f.out.changes) {
    CHECK(c.source.read == read_method::backfill);
    CHECK(c.op == op_kind::upsert);
    CHECK(std::get<int64_t>(c.seq.parts()[0]) == 0);
  }
  CHECK(text_of(f.out.changes[2], "total") == "3.10");
}

TEST_CASE("Datastream Avro: the JSON twin of each fixture decodes to the same changes") {
  for (const char* name : {"mysql_orders", "mysql_backfill", "postgresql_items", "oracle_emp"}) {
    CAPTURE(name);
    fixture_decoder avro;
    fixture_decoder json;
    REQUIRE_FALSE(avro.decode(fixture(std::string(name) + ".avro")));
    for (const std::string& line : lines(std::string(name) + ".jsonl")) {
      REQUIRE_FALSE(json.decode(line));
    }
    REQUIRE(avro.out.changes.size() == json.out.changes.size());
    for (size_t i = 0; i < avro.out.changes.size(); ++i) {
      const change& a = avro.out.changes[i];
      const change& j = json.out.changes[i];
      CAPTURE(i);
      CHECK(a.op == j.op);
      CHECK(a.table->name.qualified() == j.table->name.qualified());
      CHECK(a.key.canonical == j.key.canonical);
      CHECK(a.seq == j.seq);
      CHECK(a.source.tx == j.source.tx);
      CHECK(a.source.source_ts == j.source.source_ts);
      CHECK(a.source.read == j.source.read);
      CHECK_FALSE(j.types);  // Datastream JSON carries no types
      REQUIRE(a.after.size() == j.after.size());
      for (size_t k = 0; k < a.after.size(); ++k) {
        const column_value& av = a.after[k];
        const column_value& jv = j.after[k];
        CAPTURE(av.name);
        CHECK(av.name == jv.name);
        if (av.v.kind == value_kind::bytes) {  // JSON carries bytes as base64 text
          CHECK(encode_base64(av.v.text) == jv.v.text);
        } else if (av.v.kind == value_kind::number) {
          CHECK(canonical_number(av.v.text) == canonical_number(jv.v.text));
        } else {
          CHECK(av.v == jv.v);
        }
      }
    }
  }
}

TEST_CASE("format auto: an Avro object container is Datastream") {
  format_detector detector(1 << 20);
  auto format = detector.detect(fixture("oracle_emp.avro"));
  REQUIRE(format);
  CHECK(*format == detected_format::datastream);
}

}  // namespace sluice
