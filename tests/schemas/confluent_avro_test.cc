// Confluent-framed Avro (magic byte 0, schema id, Avro binary) through the Debezium and
// Datastream decoders and `format: auto`, with bodies written by a real Avro writer (fastavro:
// tests/fixtures/confluent_avro/generate.py) and a registry held in memory.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <simdjson.h>

#include "core/model/base64.h"
#include "schemas/common/auto_decoder.h"
#include "schemas/datastream/datastream_decoder.h"
#include "schemas/debezium/debezium_decoder.h"
#include "schemas/registry/confluent_family.h"
#include "tests/schemas/avro_fixture.h"

namespace sluice {
namespace {

std::string file(const std::string& name) {
  std::ifstream in(std::string(SLUICE_SOURCE_DIR) + "/tests/fixtures/confluent_avro/" + name,
                   std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct body {
  std::string kind, name;
  std::optional<std::string> key, value;  // Avro binary, unframed
};

std::vector<body> bodies() {
  std::vector<body> out;
  std::istringstream in(file("bodies.jsonl"));
  simdjson::dom::parser parser;
  for (std::string line; std::getline(in, line);) {
    simdjson::dom::element e = parser.parse(line);
    body b;
    b.kind = std::string(std::string_view(e["kind"]));
    b.name = std::string(std::string_view(e["name"]));
    for (auto [member, into] : {std::pair{"key", &b.key}, std::pair{"value", &b.value}}) {
      std::string_view text;
      if (!e[member].get_string().get(text)) {
        std::string bytes;
        REQUIRE(decode_base64(text, bytes));
        *into = bytes;
      }
    }
    out.push_back(std::move(b));
  }
  return out;
}

std::string framed(int32_t id, std::string_view avro) {
  std::string out(1, '\0');
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>(id >> shift));
  out.append(avro);
  return out;
}

constexpr int32_t key_id = 11, value_id = 12, datastream_id = 13, extra_id = 14;

// The registry, in memory: ids 11-13 hold the fixtures' schemas.
class memory_registry : public schema_source {
 public:
  memory_registry() {
    add(key_id, file("debezium_key.avsc"));
    add(value_id, file("debezium_value.avsc"));
    add(datastream_id, file("datastream_mysql_orders.avsc"));
    add(extra_id, file("datastream_with_extra.avsc"));
  }
  result<std::shared_ptr<const registered_schema>> schema(schema_id id) override {
    ++requests;
    if (stop) throw schema_source_stopped("stop requested");
    auto it = _schemas.find(id.value());
    if (it == _schemas.end()) {
      return make_error(error_code::unsupported,
                        "schema id " + std::to_string(id.value()) + " is not in the registry");
    }
    return it->second;
  }
  void add(int32_t id, std::string text, std::string type = "AVRO") {
    _schemas[id] = std::make_shared<const registered_schema>(
        registered_schema{schema_id{id}, std::move(type), std::move(text)});
  }
  int requests = 0;
  bool stop = false;

 private:
  std::map<int32_t, std::shared_ptr<const registered_schema>> _schemas;
};

raw_message message(const std::optional<std::string>& key, const std::optional<std::string>& value,
                    int64_t offset) {
  raw_message m;
  m.topic = "t";
  m.offset = kafka_offset{offset};
  if (key) m.key = *key;
  if (value) m.value = *value;
  return m;
}

const value* column(const change& c, std::string_view name) {
  for (const column_value& v : c.after) {
    if (v.name == name) return &v.v;
  }
  return nullptr;
}

std::string text(const change& c, std::string_view name) {
  const value* v = column(c, name);
  return v ? v->text : "<absent>";
}

std::string type(const change& c, std::string_view name) {
  REQUIRE(c.types);
  const column_types::column* col = c.types->find(name);
  return col ? col->type.to_text() : "<none>";
}

struct debezium_fixture {
  std::shared_ptr<memory_registry> registry = std::make_shared<memory_registry>();
  table_catalog catalog;
  debezium_decoder decoder{catalog, debezium_options{{}, "__debezium_unavailable_value", registry}};
  decode_output out;
  std::vector<body> all = bodies();

  std::optional<error> decode(const body& b, int64_t offset) {
    const std::optional<std::string> key =
        b.key ? std::optional(framed(key_id, *b.key)) : std::nullopt;
    const std::optional<std::string> value =
        b.value ? std::optional(framed(value_id, *b.value)) : std::nullopt;
    return decoder.decode(message(key, value, offset), out);
  }
};

TEST_CASE("Debezium Avro: AvroConverter events decode to the changes their JSON twins give") {
  debezium_fixture f;
  int64_t offset = 0;
  for (const body& b : f.all) {
    if (b.kind != "debezium") continue;
    INFO(b.name);
    const auto err = f.decode(b, offset++);
    REQUIRE_MESSAGE(!err, (err ? err->message : ""));
  }
  REQUIRE(f.out.changes.size() == 4);
  const change& snapshot = f.out.changes[0];
  const change& insert = f.out.changes[1];
  const change& update = f.out.changes[2];
  const change& remove = f.out.changes[3];

  CHECK(snapshot.table->name.qualified() == "inventory.public.orders");
  CHECK(snapshot.op == op_kind::upsert);
  CHECK(snapshot.source.read == read_method::backfill);
  CHECK(snapshot.key.columns == std::vector<std::string>{"id"});
  // Connect's and Debezium's logical types, as the JSON decoder writes them.
  CHECK(text(snapshot, "id") == "1");
  CHECK(text(snapshot, "qty") == "3");
  CHECK(text(snapshot, "price") == "29.99");
  CHECK(text(snapshot, "created") == "2024-01-15");
  CHECK(text(snapshot, "updated") == "2024-01-15T11:30:00.123456");
  CHECK(text(snapshot, "zoned") == "2024-01-15T11:30:00.123456Z");
  CHECK(text(snapshot, "at") == "11:30:00.25");
  CHECK(text(snapshot, "amount") == "12.345");
  CHECK(column(snapshot, "doc")->kind == value_kind::json);
  CHECK(text(snapshot, "doc") == R"({"a": [1, 2]})");
  CHECK(text(snapshot, "uid") == "00000000-0000-0000-0000-000000000001");
  CHECK(column(snapshot, "blob")->kind == value_kind::bytes);
  CHECK(text(snapshot, "blob") == std::string("\x00\x01\xff", 3));
  CHECK(text(snapshot, "flag") == "true");
  CHECK(text(snapshot, "ratio") == "0.5");
  CHECK(text(snapshot, "f32") == "1.25");
  CHECK(column(snapshot, "tags")->kind == value_kind::json);
  CHECK(text(snapshot, "tags") == R"(["x","y"])");
  CHECK(text(snapshot, "name") == "order 1");
  // Typed columns from connect.name / connect.parameters / connect.type.
  CHECK(type(snapshot, "id") == "int64");
  CHECK(type(snapshot, "qty") == "int16");
  CHECK(type(snapshot, "price") == "decimal(10,2)");
  CHECK(type(snapshot, "created") == "date");
  CHECK(type(snapshot, "updated") == "timestamp(6)");
  CHECK(type(snapshot, "zoned") == "timestamptz");
  CHECK(type(snapshot, "at") == "time(6)");
  CHECK(type(snapshot, "amount") == "decimal");
  CHECK(type(snapshot, "doc") == "json");
  CHECK(type(snapshot, "uid") == "uuid");
  CHECK(type(snapshot, "blob") == "bytes");
  CHECK(type(snapshot, "flag") == "boolean");
  CHECK(type(snapshot, "ratio") == "float64");
  CHECK(type(snapshot, "f32") == "float32");
  CHECK(type(snapshot, "tags") == "string[]");
  CHECK(type(snapshot, "name") == "string");

  CHECK(insert.source.read == read_method::cdc);
  CHECK(insert.source.tx == "771:33555880");  // transaction.id
  CHECK(column(insert, "name")->kind == value_kind::null);
  CHECK(text(insert, "f32") == "NaN");
  CHECK(text(update, "qty") == "-7");
  CHECK(text(update, "price") == "-0.01");
  CHECK(snapshot.seq < insert.seq);  // snapshot reads order below streamed changes
  CHECK(insert.seq < update.seq);    // by lsn
  CHECK(update.seq < remove.seq);
  CHECK(insert.key == update.key);
  CHECK(remove.op == op_kind::remove);
  CHECK(remove.key == snapshot.key);
  // One schema parse per id: the registry is asked once per message, the types shared.
  CHECK(snapshot.types == insert.types);
}

TEST_CASE("Debezium Avro: bad frames are errors naming what is wrong, never a crash") {
  debezium_fixture f;
  const body& b = f.all.front();
  const auto decode_value = [&](std::string value) {
    return f.decoder.decode(message(framed(key_id, *b.key), value, 1), f.out);
  };
  SUBCASE("an id the registry never issued") {
    const auto err = decode_value(framed(999, *b.value));
    REQUIRE(err);
    CHECK(err->message.find("schema id 999 is not in the registry") != std::string::npos);
  }
  SUBCASE("bytes after the record") {
    const auto err = decode_value(framed(value_id, *b.value + "xx"));
    REQUIRE(err);
    CHECK(err->code == error_code::invalid_avro);
  }
  SUBCASE("a record cut short") {
    const auto err = decode_value(framed(value_id, b.value->substr(0, b.value->size() / 2)));
    REQUIRE(err);
    CHECK(err->code == error_code::invalid_avro);
  }
  SUBCASE("the key's schema for the value") {
    CHECK(decode_value(framed(key_id, *b.value)));
  }
  SUBCASE("a schema that is not Avro") {
    f.registry->add(50, R"({"type":"object"})", "JSON");
    const auto err = decode_value(framed(50, *b.value));
    REQUIRE(err);
    CHECK(err->message.find("sluice reads Avro only") != std::string::npos);
  }
  SUBCASE("a header alone") {
    CHECK(decode_value(framed(value_id, "")));
  }
  SUBCASE("no registry configured") {
    table_catalog catalog;
    debezium_decoder plain{catalog, debezium_options{}};
    const auto err = plain.decode(message(std::nullopt, framed(value_id, *b.value), 1), f.out);
    REQUIRE(err);
    CHECK(err->code == error_code::unsupported);
    CHECK(err->message.find("no schema.registry.url") != std::string::npos);
  }
  SUBCASE("a stop while the registry is away passes through, nothing decoded") {
    f.registry->stop = true;
    CHECK_THROWS_AS(decode_value(framed(value_id, *b.value)), schema_source_stopped);
  }
  CHECK(f.out.changes.empty());
}

TEST_CASE("Debezium Avro: every truncation is an error, every flipped byte decodes or errs") {
  debezium_fixture f;
  for (const body& b : f.all) {
    if (b.kind != "debezium") continue;
    INFO(b.name);
    const std::string key = framed(key_id, *b.key);
    f.out.truncate_changes(0);  // what the flips of the previous body decoded
    for (size_t n = 0; n < b.value->size(); ++n) {
      CAPTURE(n);
      // A body cut anywhere never reads as a record (each field needs its bytes).
      CHECK(f.decoder.decode(message(key, framed(value_id, b.value->substr(0, n)), 1), f.out));
    }
    CHECK(f.out.changes.empty());
    for (size_t at = 0; at < b.value->size(); ++at) {
      for (const unsigned char flip : {0x01, 0x80, 0xff}) {
        std::string value = *b.value;
        value[at] = static_cast<char>(static_cast<unsigned char>(value[at]) ^ flip);
        (void)f.decoder.decode(message(key, framed(value_id, value), 1), f.out);
      }
    }
  }
}

// The Datastream events of mysql_orders.avro, one Confluent frame each, against the container.
std::vector<change> datastream_changes(table_catalog& catalog, bool framed_records) {
  auto registry = std::make_shared<memory_registry>();
  datastream_decoder decoder{catalog, datastream_options{{}, "UTC", registry}};
  decode_output out;
  if (framed_records) {
    int64_t offset = 0;
    for (const body& b : bodies()) {
      if (b.kind != "datastream") continue;
      const auto err =
          decoder.decode(message(std::nullopt, framed(datastream_id, *b.value), offset++), out);
      REQUIRE_MESSAGE(!err, (err ? err->message : ""));
    }
  } else {
    const std::string container = avro_fixture("mysql_orders.avro");
    REQUIRE(!decoder.decode(message(std::nullopt, container, 0), out));
  }
  return std::move(out.changes);
}

TEST_CASE("Datastream Avro records in Confluent frames decode like the container's records") {
  table_catalog catalog;  // the changes' tables live in it
  const std::vector<change> framed_changes = datastream_changes(catalog, true);
  const std::vector<change> container = datastream_changes(catalog, false);
  REQUIRE(framed_changes.size() == container.size());
  REQUIRE(!container.empty());
  for (size_t i = 0; i < container.size(); ++i) {
    INFO("record " << i);
    CHECK(framed_changes[i].table->name.qualified() == container[i].table->name.qualified());
    CHECK(framed_changes[i].op == container[i].op);
    CHECK(framed_changes[i].key == container[i].key);
    CHECK(framed_changes[i].seq == container[i].seq);
    REQUIRE(framed_changes[i].after.size() == container[i].after.size());
    for (size_t j = 0; j < container[i].after.size(); ++j) {
      CHECK(framed_changes[i].after[j].name == container[i].after[j].name);
      CHECK(framed_changes[i].after[j].v.text == container[i].after[j].v.text);
      CHECK(framed_changes[i].after[j].v.kind == container[i].after[j].v.kind);
    }
    REQUIRE(framed_changes[i].types);
    CHECK(framed_changes[i].types->columns.size() == container[i].types->columns.size());
  }
}

TEST_CASE("Datastream Avro: a field sluice does not read is walked over, its text not judged") {
  auto registry = std::make_shared<memory_registry>();
  table_catalog catalog;
  datastream_decoder decoder{catalog, datastream_options{{}, "UTC", registry}};
  decode_output out;
  for (const body& b : bodies()) {
    if (b.kind != "datastream_extra") continue;
    // writer_note holds a NUL, which no column could store: it is not a column.
    const auto err = decoder.decode(message(std::nullopt, framed(extra_id, *b.value), 1), out);
    REQUIRE_MESSAGE(!err, (err ? err->message : ""));
    // Cut inside the extra field: its structure is still checked.
    CHECK(decoder.decode(
        message(std::nullopt, framed(extra_id, b.value->substr(0, b.value->size() - 3)), 2), out));
  }
  REQUIRE(out.changes.size() == 1);
  CHECK(out.changes[0].after.size() > 0);
}

TEST_CASE("format: auto tells Debezium from Datastream Confluent frames by their schemas") {
  auto registry = std::make_shared<memory_registry>();
  table_catalog catalog;
  decoder_factories factories;
  factories.debezium = [&] {
    return std::make_unique<debezium_decoder>(
        catalog, debezium_options{{}, "__debezium_unavailable_value", registry});
  };
  factories.datastream = [&] {
    return std::make_unique<datastream_decoder>(catalog, datastream_options{{}, "UTC", registry});
  };
  auto finder = std::make_shared<confluent_family_finder>(registry, 64);
  factories.confluent_family = [finder](const raw_message& m) { return finder->family(m); };
  auto_decoder decoder(std::move(factories), decode_limits{});
  decode_output out;
  int64_t offset = 0;
  size_t messages = 0;
  for (const body& b : bodies()) {
    if (b.kind == "datastream_extra") continue;
    ++messages;
    const int32_t id = b.kind == "debezium" ? value_id : datastream_id;
    const std::optional<std::string> key =
        b.key ? std::optional(framed(key_id, *b.key)) : std::nullopt;
    const auto err = decoder.decode(message(key, framed(id, *b.value), offset++), out);
    REQUIRE_MESSAGE(!err, (err ? err->message : ""));
    CHECK(decoder.last_format() ==
          (b.kind == "debezium" ? detected_format::debezium : detected_format::datastream));
  }
  CHECK(out.changes.size() == messages);
  // A key schema describes neither family; without a registry, nothing can be told.
  const auto err = decoder.decode(message(std::nullopt, framed(key_id, "\x02"), 99), out);
  REQUIRE(err);
  CHECK(err->message.find("neither a Debezium envelope nor a Datastream event") !=
        std::string::npos);
  auto_decoder no_registry(decoder_factories{}, decode_limits{});
  const auto none = no_registry.decode(message(std::nullopt, framed(value_id, "\x02"), 1), out);
  REQUIRE(none);
  CHECK(none->message.find("no schema.registry.url") != std::string::npos);
}

TEST_CASE("avro_schema_family reads the root record's fields") {
  auto registry = std::make_shared<memory_registry>();
  confluent_family_finder finder(registry, 64);
  CHECK(finder.family(message(std::nullopt, framed(value_id, ""), 0)).value() ==
        detected_format::debezium);
  CHECK(finder.family(message(std::nullopt, framed(datastream_id, ""), 0)).value() ==
        detected_format::datastream);
  CHECK(finder.family(message(std::nullopt, framed(key_id, ""), 0)).value() ==
        detected_format::unknown);
  const int asked = registry->requests;
  CHECK(finder.family(message(std::nullopt, framed(value_id, ""), 0)).value() ==
        detected_format::debezium);
  CHECK(registry->requests == asked);  // classified once per id
  CHECK(!finder.family(message(std::nullopt, framed(77, ""), 0)));
}

}  // namespace
}  // namespace sluice
