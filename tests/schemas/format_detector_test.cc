#include "schemas/common/format_detector.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "schemas/common/auto_decoder.h"
#include "schemas/debezium/debezium_decoder.h"
#include "schemas/dsql/dsql_decoder.h"

namespace sluice {
namespace {

constexpr const char* datastream_sample = R"({"stream_name":"s","read_method":"mysql-cdc-binlog",
  "object":"shop_orders","uuid":"u","read_timestamp":"2024-03-01T10:00:00Z",
  "source_timestamp":"2024-03-01T10:00:00Z",
  "source_metadata":{"database":"shop","table":"orders","change_type":"INSERT",
    "log_file":"mysql-bin.000001","log_position":4,"primary_keys":["id"]},
  "payload":{"id":1}})";

constexpr const char* goldengate_dml = R"({"qual_table":"SALES.ORDERS","op_type":"INSERT",
  "op_ts":"2026-07-13T04:01:01.123456Z","xid":"x","pos":"p","after":{"ORDER_ID":1001}})";
constexpr const char* goldengate_metadata = R"({"op_type":"OBJECT_METADATA",
  "qual_table":"SALES.ORDERS","columns":{"ORDER_ID":{"type":"number","null":false,"key":true}}})";
constexpr const char* goldengate_stream_metadata = R"({"op_type":"STREAM_METADATA",
  "producer":{"name":"gg","version":"23"}})";
constexpr const char* goldengate_schema = R"({"$schema":"http://json-schema.org/draft-04/schema#",
  "id":"SALES.ORDERS","title":"ORDERS","type":"object","properties":{}})";
constexpr const char* cloudevents = R"({"specversion":"1.0","type":"t","source":"s","id":"1",
  "datacontenttype":"application/json","data":{"qual_table":"SALES.ORDERS","op_type":"INSERT"}})";

constexpr const char* dsql_full = R"({"type":"full","op":"c","before":null,
  "after":{"order_id":1001},"source":{"version":"1.0","ts_ms":1,"ts_ns":1,"txId":"t",
  "schema":"public","table":"order_items","db":"postgres","cluster":"c"},"ts_ms":2,"ts_ns":2})";
constexpr const char* dsql_chunked = R"({"type":"chunked","op":"c","before":null,"after":null,
  "source":{"ts_ns":1,"txId":"t","schema":"public","table":"t","db":"postgres","cluster":"c"},
  "chunked":{"after":{"chunk_id":"k","total_fragments":3,"crc32c":"1"}}})";
constexpr const char* dsql_fragment = R"({"type":"fragment","chunk_id":"k","index":0,"data":"{"})";

constexpr const char* debezium_plain = R"({"before":null,"after":{"id":1},
  "source":{"connector":"postgresql","db":"shop","schema":"public","table":"items","lsn":5,
  "ts_ms":1},"op":"c","ts_ms":2})";
constexpr const char* debezium_wrapped = R"({"schema":{"type":"struct","fields":[]},
  "payload":{"before":null,"after":{"id":1},"source":{"connector":"postgresql","db":"shop",
  "schema":"public","table":"items","lsn":5,"ts_ms":1},"op":"c","ts_ms":2}})";
constexpr const char* debezium_truncate = R"({"source":{"connector":"mysql","db":"shop",
  "table":"items","file":"mysql-bin.000001","pos":4,"ts_ms":1},"op":"t","before":null,
  "after":null})";

detected_format detect(std::string_view json) {
  format_detector d(1 << 20);
  auto r = d.detect(json);
  if (!r) FAIL_CHECK(r.err().message);
  REQUIRE(r.ok());
  return *r;
}

// A decoder that records what it was given.
struct recording_decoder final : decoder {
  std::string name;
  int* decoded;
  recording_decoder(std::string n, int* count) : name(std::move(n)), decoded(count) {}
  std::optional<error> decode(const raw_message&, decode_output&) override {
    ++*decoded;
    return std::nullopt;
  }
};

}  // namespace

TEST_CASE("each family's sample is detected as that family") {
  CHECK(detect(datastream_sample) == detected_format::datastream);
  CHECK(detect(goldengate_dml) == detected_format::goldengate);
  CHECK(detect(goldengate_metadata) == detected_format::goldengate);
  CHECK(detect(goldengate_stream_metadata) == detected_format::goldengate);
  CHECK(detect(goldengate_schema) == detected_format::goldengate);
  CHECK(detect(cloudevents) == detected_format::goldengate);
  CHECK(detect(dsql_full) == detected_format::dsql);
  CHECK(detect(dsql_chunked) == detected_format::dsql);
  CHECK(detect(dsql_fragment) == detected_format::dsql);
  CHECK(detect(debezium_plain) == detected_format::debezium);
  CHECK(detect(debezium_wrapped) == detected_format::debezium);
  CHECK(detect(debezium_truncate) == detected_format::debezium);
  // Debezium's truncate as it sends it, with no before nor after, schemaless and wrapped
  // (format: auto refused these: issue 27).
  CHECK(detect(R"({"source":{"connector":"postgresql","db":"shop","schema":"public",)"
               R"("table":"items","lsn":7,"ts_ms":1},"op":"t","ts_ms":2,"transaction":null})") ==
        detected_format::debezium);
  CHECK(detect(R"({"schema":{"type":"struct","fields":[]},"payload":{"source":{"db":"shop",)"
               R"("table":"items","ts_ms":1},"op":"t","ts_ms":2}})") == detected_format::debezium);
  // Any other op still needs an image.
  CHECK(detect(R"({"source":{"db":"shop"},"op":"c","ts_ms":2})") == detected_format::unknown);
}

TEST_CASE("the precedence decides between shapes that match more than one rule") {
  // GoldenGate markers win over everything.
  CHECK(detect(R"({"op_type":"INSERT","source_metadata":{},"payload":{}})") ==
        detected_format::goldengate);
  // Datastream's pair wins over DSQL and Debezium members.
  CHECK(detect(R"({"source_metadata":{},"payload":{},"op":"c","after":{},"source":{}})") ==
        detected_format::datastream);
  // A DSQL record is also Debezium-shaped: its type and source.cluster make it DSQL…
  CHECK(detect(R"({"type":"full","op":"c","after":{},"source":{"cluster":"c"}})") ==
        detected_format::dsql);
  // …and without them it is Debezium.
  CHECK(detect(R"({"type":"full","op":"c","after":{},"source":{"db":"d"}})") ==
        detected_format::debezium);
  CHECK(detect(R"({"type":"other","op":"c","after":{},"source":{"cluster":"c"}})") ==
        detected_format::debezium);
}

TEST_CASE("garbage is unknown or an error, and the keys seen are kept for the message") {
  format_detector d(1 << 10);
  auto unknown = d.detect(R"({"hello":1,"world":{"op":"c"},"op":"c"})");
  REQUIRE(unknown.ok());
  CHECK(*unknown == detected_format::unknown);
  CHECK(d.keys_seen() == std::vector<std::string_view>{"hello", "world", "op"});

  auto array = d.detect("[1,2,3]");
  REQUIRE(array.ok());
  CHECK(*array == detected_format::unknown);
  CHECK(d.keys_seen().empty());
  auto scalar = d.detect("42");
  REQUIRE(scalar.ok());
  CHECK(*scalar == detected_format::unknown);

  CHECK(d.detect("").err().code == error_code::invalid_json);
  auto text = d.detect("not json");  // the top level is not an object: nothing to detect
  REQUIRE(text.ok());
  CHECK(*text == detected_format::unknown);
  CHECK(d.detect(R"({"op":"c","before":)").err().code == error_code::invalid_json);
  CHECK(d.detect(std::string(2000, ' ')).err().code == error_code::too_large);
  // A payload that is not an object is not a wrapper.
  auto payload = d.detect(R"({"schema":{},"payload":"x"})");
  REQUIRE(payload.ok());
  CHECK(*payload == detected_format::unknown);
}

TEST_CASE("auto_decoder makes each family's decoder once, on its first message") {
  int made[4] = {0, 0, 0, 0};
  int decoded[4] = {0, 0, 0, 0};
  auto factory = [&](int i, const char* name) {
    return [&, i, name]() -> std::unique_ptr<decoder> {
      ++made[i];
      return std::make_unique<recording_decoder>(name, &decoded[i]);
    };
  };
  decoder_factories factories;
  factories.datastream = factory(0, "datastream");
  factories.goldengate = factory(1, "goldengate");
  factories.dsql = factory(2, "dsql");
  factories.debezium = factory(3, "debezium");
  auto_decoder d(std::move(factories), decode_limits{});
  decode_output out;
  raw_message msg;
  for (const char* json : {debezium_plain, debezium_wrapped, dsql_full, debezium_truncate}) {
    msg.value = json;
    CHECK_FALSE(d.decode(msg, out).has_value());
  }
  CHECK(d.last_format() == detected_format::debezium);
  CHECK(made[0] == 0);
  CHECK(made[1] == 0);
  CHECK(made[2] == 1);
  CHECK(made[3] == 1);
  CHECK(decoded[2] == 1);
  CHECK(decoded[3] == 3);

  msg.value = std::nullopt;  // a tombstone: no family, no error
  CHECK_FALSE(d.decode(msg, out).has_value());
  CHECK(decoded[3] == 3);
}

TEST_CASE("auto_decoder reports unknown shapes with their keys and missing families") {
  decoder_factories factories;
  factories.debezium = [] { return std::unique_ptr<decoder>(); };  // gives nothing
  factories.dsql = []() -> std::unique_ptr<decoder> { throw std::invalid_argument("bad option"); };
  auto_decoder d(std::move(factories), decode_limits{});
  decode_output out;
  raw_message msg;

  msg.value = R"({"foo":1,"bar":[]})";
  auto err = d.decode(msg, out);
  REQUIRE(err.has_value());
  CHECK(err->code == error_code::unsupported);
  CHECK(err->message.find("top-level keys: foo, bar") != std::string::npos);

  msg.value = goldengate_dml;  // no factory
  err = d.decode(msg, out);
  REQUIRE(err.has_value());
  CHECK(err->code == error_code::unsupported);
  CHECK(err->message.find("goldengate") != std::string::npos);

  msg.value = dsql_full;  // a factory that throws: reported, not thrown
  err = d.decode(msg, out);
  REQUIRE(err.has_value());
  CHECK(err->message.find("bad option") != std::string::npos);

  msg.value = debezium_plain;
  err = d.decode(msg, out);
  REQUIRE(err.has_value());
  CHECK(err->code == error_code::unsupported);

  msg.value = "{";
  err = d.decode(msg, out);
  REQUIRE(err.has_value());
  CHECK(err->code == error_code::invalid_json);
  CHECK(out.empty());
}

TEST_CASE("auto_decoder hands real Debezium and DSQL messages to their decoders") {
  table_catalog catalog;
  catalog.configure_key("public.order_items", {"order_id"});
  decoder_factories factories;
  factories.debezium = [&] {
    return std::make_unique<debezium_decoder>(catalog, debezium_options{});
  };
  factories.dsql = [&] { return std::make_unique<dsql_decoder>(catalog, dsql_options{}); };
  auto_decoder d(std::move(factories), decode_limits{});
  decode_output out;
  raw_message msg;
  msg.value = dsql_full;
  REQUIRE_FALSE(d.decode(msg, out).has_value());
  msg.value = debezium_wrapped;
  REQUIRE_FALSE(d.decode(msg, out).has_value());
  REQUIRE(out.changes.size() == 2);
  CHECK(out.changes[0].table->name.qualified() == "postgres.public.order_items");
  CHECK(out.changes[1].table->name.qualified() == "shop.public.items");
}

}  // namespace sluice
