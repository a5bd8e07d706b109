#include "connector/prepare/preparer.h"

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "connector/config/config_loader.h"

// The prepare stage's rules for one message, as every driver feeds them: a source message
// in, a dead letter or changes out, the same whoever read it.

using namespace sluice;

namespace {

std::string event(int id, const std::string& table = "rows", int lsn = 0) {
  const std::string l = "0/" + std::to_string(lsn ? lsn : 100 + id);
  return R"({"uuid":"u)" + std::to_string(id) +
         R"(","read_timestamp":"2026-01-01T00:00:01.000Z","source_timestamp":1767225600000,)"
         R"("object":"public_)" +
         table +
         R"(","read_method":"postgresql-cdc","stream_name":"s",)"
         R"("schema_key":"k","sort_keys":[1767225600000,")" +
         l + R"("],"source_metadata":{"schema":"public","table":")" + table +
         R"(","is_deleted":false,)"
         R"("change_type":"INSERT","primary_keys":["id"],"lsn":")" +
         l + R"(","tx_id":1},"payload":{"id":)" + std::to_string(id) + "}}";
}

config load(const std::string& extra) {
  load_result r = load_config(R"yaml(name: prepare-test
kafka:
  bootstrap.servers: 127.0.0.1:9092
topics: [cdc]
postgres:
  dsn: postgresql://sluice@127.0.0.1:5432/replica
format: datastream
)yaml" + extra,
                              [](std::string_view) { return std::optional<std::string>(); });
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  return r.value();
}

source_message message(const std::string& value, int64_t offset, int64_t ts_ms = 1767225600000) {
  source_message m;
  m.raw.topic = "cdc";
  m.raw.partition = partition_id{2};
  m.raw.offset = kafka_offset{offset};
  m.raw.key = "k";
  m.raw.value = value;
  m.raw.headers.emplace_back("trace", std::optional<std::string_view>("t-1"));
  m.timestamp_ms = ts_ms;
  return m;
}

// The config and decoders outlive the preparer (tests hold all three).
struct stage {
  explicit stage(const std::string& extra, size_t lanes = 1)
      : cfg(load(extra)), decoders(cfg), prepare(cfg, decoders, lanes) {}
  config cfg;
  topic_decoders decoders;
  preparer prepare;
};

}  // namespace

TEST_CASE("a message that decodes is changes, one that does not is a dead letter with its bytes") {
  stage s("errors.tolerance: all\n");
  const std::string good = event(1), bad = "{not json";
  source_message a = message(good, 7), b = message(bad, 8);
  CHECK(s.prepare.add(a, 0) == preparer::verdict::decoded);
  CHECK(a.raw.timestamp == timestamp_ns{1767225600000LL * 1'000'000});
  CHECK(s.prepare.add(b, 0) == preparer::verdict::dead_lettered);
  CHECK(s.prepare.last_reason().starts_with("cdc[2]@8: invalid_json: "));
  CHECK(s.prepare.messages() == 2);
  CHECK(s.prepare.bytes() == 2 + good.size() + bad.size());

  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes.size() == 1);
  REQUIRE(lanes[0].dead_letters.size() == 1);
  const dead_letter& d = lanes[0].dead_letters[0];
  CHECK(d.reason.starts_with("invalid_json: "));
  CHECK(d.origin.topic == "cdc");
  CHECK(d.origin.partition == partition_id{2});
  CHECK(d.origin.offset == kafka_offset{8});
  CHECK(d.key == std::optional<std::string>("k"));
  CHECK(d.value == std::optional<std::string>(bad));
  REQUIRE(d.headers.size() == 1);
  CHECK(d.headers[0].second == std::optional<std::string>("t-1"));
  REQUIRE(lanes[0].merged.tables.size() == 1);
  CHECK(lanes[0].merged.tables[0].rows.size() == 1);
  CHECK(lanes[0].messages == 2);
  CHECK(s.prepare.messages() == 0);  // take() closed the batch
  CHECK(s.prepare.take()[0].merged.tables.empty());
}

TEST_CASE("an absurd timestamp is refused before decoding, naming whose clock it was") {
  stage s("errors.tolerance: all\n");
  const std::string value = event(1);
  source_message producer = message(value, 1, int64_t{1} << 60);
  source_message broker = message(value, 2, int64_t{1} << 60);
  broker.clock = timestamp_type::log_append_time;
  CHECK(s.prepare.add(producer, 0) == preparer::verdict::dead_lettered);
  CHECK(s.prepare.last_reason().find("(CreateTime, the producer's)") != std::string::npos);
  CHECK(s.prepare.add(broker, 0) == preparer::verdict::dead_lettered);
  CHECK(s.prepare.last_reason().find("(LogAppendTime, the broker's)") != std::string::npos);
  // Ten days ahead: refused, and the letter keeps the timestamp it was refused for.
  const int64_t ahead_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch() + std::chrono::hours(240))
          .count();
  source_message ahead = message(value, 3, ahead_ms);
  CHECK(s.prepare.add(ahead, 0) == preparer::verdict::dead_lettered);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].dead_letters.size() == 3);
  CHECK(lanes[0].dead_letters[0].reason.starts_with("bad_timestamp: "));
  CHECK(lanes[0].dead_letters[0].origin.timestamp == timestamp_ns{0});  // past 2262: none
  CHECK(lanes[0].dead_letters[2].origin.timestamp == timestamp_ns{ahead_ms * 1'000'000});
  CHECK(lanes[0].merged.tables.empty());
  CHECK(lanes[0].message_timestamps.empty());
}

TEST_CASE("what a source could not read is a dead letter in the source's words, named where") {
  stage s("errors.tolerance: all\n");
  source_message m;
  m.raw.value = "this is not a kcat record";
  m.unreadable = error{error_code::invalid_json, "not a kcat -J record: invalid_json: oops"};
  m.where = "line 16";
  CHECK(s.prepare.add(m, 0) == preparer::verdict::dead_lettered);
  CHECK(s.prepare.last_reason() == "line 16: not a kcat -J record: invalid_json: oops");
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].dead_letters.size() == 1);
  CHECK(lanes[0].dead_letters[0].reason == "not a kcat -J record: invalid_json: oops");
  CHECK(lanes[0].dead_letters[0].origin.topic.empty());
  CHECK(lanes[0].dead_letters[0].value == std::optional<std::string>("this is not a kcat record"));
}

TEST_CASE("under errors.tolerance none a refused message stops, and nothing of it is kept") {
  stage s("errors.tolerance: none\n");
  const std::string good = event(1), bad = "{not json";
  source_message a = message(good, 1), b = message(bad, 2);
  b.where = "letter 42";
  CHECK(s.prepare.add(a, 0) == preparer::verdict::decoded);
  CHECK(s.prepare.add(b, 0) == preparer::verdict::stop);
  CHECK(s.prepare.last_reason().starts_with("letter 42: invalid_json: "));
  std::vector<lane_batch> lanes = s.prepare.take();
  CHECK(lanes[0].dead_letters.empty());
  REQUIRE(lanes[0].merged.tables.size() == 1);
  CHECK(lanes[0].merged.tables[0].rows.size() == 1);
}

TEST_CASE("the table filter drops changes, decoded or read back from a letter, alike") {
  stage s("errors.tolerance: all\ntables.exclude: [public.hidden]\n");
  const std::string shown = event(1, "shown"), hidden = event(2, "hidden");
  source_message a = message(shown, 1), b = message(hidden, 2);
  CHECK(s.prepare.add(a, 0) == preparer::verdict::decoded);
  CHECK(s.prepare.add(b, 0) == preparer::verdict::filtered);

  // A letter's changes: decoded once when it was written, never again.
  decode_output out;
  const std::string letter = event(3, "hidden");
  source_message again = message(letter, 3);
  again.raw.timestamp = timestamp_ns{1};
  REQUIRE_FALSE(s.decoders.for_topic("cdc").decode(again.raw, out));
  std::vector<change> changes = std::move(out.changes);
  CHECK(s.prepare.add_changes(changes, 0) == preparer::verdict::filtered);
  CHECK(changes.empty());

  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 1);
  CHECK(lanes[0].merged.tables[0].table->name.table == "shown");
  CHECK(lanes[0].messages == 3);
}

TEST_CASE("lanes are prepared apart and merged apart") {
  stage s("errors.tolerance: all\n", /*lanes=*/2);
  const std::string v1 = event(1, "rows", 300), v1_older = event(1, "rows", 200), v2 = event(2);
  source_message a = message(v1, 1), b = message(v1_older, 2), c = message(v2, 3);
  s.prepare.add(a, 0);
  s.prepare.add(b, 0);
  s.prepare.add(c, 1);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes.size() == 2);
  REQUIRE(lanes[0].merged.tables.size() == 1);
  CHECK(lanes[0].merged.tables[0].rows.size() == 1);  // the older change collapsed
  CHECK(lanes[0].merged.stats.collapsed == 1);
  REQUIRE(lanes[1].merged.tables.size() == 1);
  CHECK(lanes[1].merged.tables[0].rows.size() == 1);
  CHECK(lanes[0].messages == 2);
  CHECK(lanes[1].messages == 1);
}
