#include "connector/prepare/transforms/transform_chain.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "connector/config/config_loader.h"
#include "connector/prepare/preparer.h"

// transforms (RegexRouter, ReplaceField) in prepare/ (issue 28): they run on decoded changes
// before the field rules, the table filter and the merge, for every driver (the preparer is
// the one they share).

using namespace sluice;

namespace {

// A Datastream event of public.<table> keyed by id, with `columns` (JSON members) beside it.
std::string event(int id, const std::string& columns, const std::string& table = "orders",
                  int lsn = 0) {
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
         l + R"(","tx_id":1},"payload":{"id":)" + std::to_string(id) + columns + "}}";
}

config load(const std::string& extra) {
  load_result r = load_config(R"yaml(name: transforms-test
kafka:
  bootstrap.servers: 127.0.0.1:9092
topics: [dbserver1.public.orders, other]
postgres:
  dsn: postgresql://sluice@127.0.0.1:5432/replica
format: datastream
errors.tolerance: all
)yaml" + extra,
                              [](std::string_view) { return std::optional<std::string>(); });
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  return r.value();
}

source_message message(const std::string& value, int64_t offset,
                       const char* topic = "dbserver1.public.orders") {
  source_message m;
  m.raw.topic = topic;
  m.raw.offset = kafka_offset{offset};
  m.raw.value = value;
  m.timestamp_ms = 1767225600000;
  return m;
}

struct stage {
  explicit stage(const std::string& extra)
      : cfg(load(extra)), decoders(cfg), prepare(cfg, decoders, 1) {}
  config cfg;
  topic_decoders decoders;
  preparer prepare;
};

std::vector<std::string> names(const merged_row& row) {
  std::vector<std::string> out;
  for (const merged_column& c : row.columns)
    out.push_back(c.name);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("a RegexRouter changes the topic a table is routed by, and the one fields match") {
  stage s(
      "transforms:\n"
      "  route:\n"
      "    type: org.apache.kafka.connect.transforms.RegexRouter\n"
      "    regex: \"([^.]+)\\\\.([^.]+)\\\\.([^.]+)\"\n"
      "    replacement: \"replica_$3\"\n"
      "fields.exclude: [\"replica_orders:secret\", \"dbserver1.public.orders:qty\"]\n");
  const std::string value = event(1, R"(,"qty":2,"secret":"s")");
  source_message m = message(value, 1);
  REQUIRE(s.prepare.add(m, 0) == preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 1);
  const table_rows& t = lanes[0].merged.tables[0];
  CHECK(t.topic == "replica_orders");  // what ${topic} in table.name.format names
  REQUIRE(t.rows.size() == 1);
  // The entry naming the routed topic applies; the one naming the topic as it came does not.
  CHECK(names(t.rows[0]) == std::vector<std::string>{"id", "qty"});
  // The dead letter's origin keeps the topic the message came on.
  CHECK(t.rows[0].origin.topic == "dbserver1.public.orders");
}

TEST_CASE("a topic the RegexRouter does not match is routed as it came") {
  stage s(
      "transforms: [route]\n"
      "transforms.route.type: RegexRouter\n"
      "transforms.route.regex: \"dbserver1\\\\.(.*)\"\n"
      "transforms.route.replacement: \"$1\"\n");
  const std::string a_value = event(1, R"(,"qty":2)");
  source_message a = message(a_value, 1, "other");
  REQUIRE(s.prepare.add(a, 0) == preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 1);
  CHECK(lanes[0].merged.tables[0].topic == "other");
}

TEST_CASE("ReplaceField renaming a key column renames the key: the changes of a row collapse") {
  stage s(
      "transforms:\n"
      "  fields:\n"
      "    type: ReplaceField\n"
      "    renames: [\"id:order_id\", \"qty:quantity\"]\n");
  const std::string newer_value = event(1, R"(,"qty":5)", "orders", 300);
  source_message newer = message(newer_value, 1);
  const std::string older_value = event(1, R"(,"qty":4)", "orders", 200);
  source_message older = message(older_value, 2);
  REQUIRE(s.prepare.add(newer, 0) == preparer::verdict::decoded);
  REQUIRE(s.prepare.add(older, 0) == preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 1);
  const auto& rows = lanes[0].merged.tables[0].rows;
  REQUIRE(rows.size() == 1);
  CHECK(lanes[0].merged.stats.collapsed == 1);
  CHECK(rows[0].key.columns == std::vector<std::string>{"order_id"});
  CHECK(names(rows[0]) == std::vector<std::string>{"order_id", "quantity"});
  CHECK(rows[0].columns[1].v.text == "5");  // the newer image won
}

TEST_CASE("ReplaceField exclude and include: a column left out never reaches the batch") {
  stage s(
      "transforms:\n"
      "  drop:\n"
      "    type: ReplaceField\n"
      "    blacklist: [secret]\n"
      "  keep:\n"
      "    type: ReplaceField\n"
      "    include: [qty, note]\n"
      "  rename:\n"
      "    type: ReplaceField\n"
      "    renames: [\"note:remark\"]\n");
  const std::string value = event(1, R"(,"qty":2,"note":"n","secret":"s","extra":1)");
  source_message m = message(value, 1);
  REQUIRE(s.prepare.add(m, 0) == preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 1);
  const table_rows& t = lanes[0].merged.tables[0];
  CHECK(names(t.rows[0]) == std::vector<std::string>{"id", "qty", "remark"});
  // The column types auto.create reads (formats that carry them): column_rules_test.cc.
}

TEST_CASE("a ReplaceField excluding a key column the messages name is a dead letter") {
  stage s(
      "transforms:\n"
      "  drop:\n"
      "    type: ReplaceField\n"
      "    exclude: [id]\n");
  const std::string value = event(1, R"(,"qty":2)");
  source_message m = message(value, 1);
  CHECK(s.prepare.add(m, 0) == preparer::verdict::dead_lettered);
  CHECK(s.prepare.last_reason().find("transforms.drop: id is a key column of") !=
        std::string::npos);
  std::vector<lane_batch> lanes = s.prepare.take();
  CHECK(lanes[0].dead_letters.size() == 1);
  CHECK(lanes[0].merged.tables.empty());
}

TEST_CASE("with no transforms the chain leaves topics and changes as they are") {
  transform_chain chain(load(""));
  CHECK(chain.empty());
  CHECK_FALSE(chain.routes());
  CHECK(chain.topic("dbserver1.public.orders") == "dbserver1.public.orders");
}

TEST_CASE("a transform runs only where its predicate matches, or where not with negate") {
  stage s(
      "transforms:\n"
      "  route:\n"
      "    type: RegexRouter\n"
      "    regex: \"(.*)\"\n"
      "    replacement: \"routed_$1\"\n"
      "    predicate: isOther\n"
      "    negate: true\n"
      "  drop_qty:\n"
      "    type: ReplaceField\n"
      "    exclude: [qty]\n"
      "    predicate: marked\n"
      "predicates:\n"
      "  isOther: {type: TopicNameMatches, pattern: \"oth.*\"}\n"
      "  marked: {type: org.apache.kafka.connect.transforms.predicates.HasHeaderKey, name: m}\n");
  const std::string a_value = event(1, R"(,"qty":2)");
  source_message a = message(a_value, 1);  // not `other`: routed; no header: qty kept
  const std::string b_value = event(2, R"(,"qty":3)", "items");
  source_message b = message(b_value, 2, "other");  // `other`: not routed; header: qty dropped
  b.raw.headers.emplace_back("m", std::nullopt);
  REQUIRE(s.prepare.add(a, 0) == preparer::verdict::decoded);
  REQUIRE(s.prepare.add(b, 0) == preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 2);
  for (const table_rows& t : lanes[0].merged.tables) {
    REQUIRE(t.rows.size() == 1);
    if (t.topic == "routed_dbserver1.public.orders") {
      CHECK(names(t.rows[0]) == std::vector<std::string>{"id", "qty"});
    } else {
      CHECK(t.topic == "other");
      CHECK(names(t.rows[0]) == std::vector<std::string>{"id"});
    }
  }
}

TEST_CASE("a predicate is checked at load: one named must exist, a router runs under topics") {
  const auto load_error = [](const std::string& extra) {
    load_result r = load_config(
        "name: t\nkafka: {bootstrap.servers: 127.0.0.1:9092}\ntopics: [a]\n"
        "postgres: {dsn: postgresql://x@127.0.0.1/r}\n" +
            extra,
        [](std::string_view) { return std::optional<std::string>(); });
    return r.ok() ? std::string() : r.error_text();
  };
  CHECK(load_error("transforms.f.type: ReplaceField\ntransforms.f.exclude: [a]\n"
                   "transforms.f.predicate: nope\n")
            .find("names no predicate") != std::string::npos);
  CHECK(load_error("transforms.r.type: RegexRouter\ntransforms.r.regex: a\n"
                   "transforms.r.replacement: b\ntransforms.r.predicate: h\n"
                   "predicates.h.type: HasHeaderKey\npredicates.h.name: x\n")
            .find("only under a TopicNameMatches") != std::string::npos);
  CHECK(load_error("predicates.h.type: Nope\n").find("unknown predicate type") !=
        std::string::npos);
  CHECK(load_error("predicates.h.type: TopicNameMatches\n").find("required by TopicNameMatches") !=
        std::string::npos);
  // Debezium's ByLogicalTableRouter requires its topic's regex and replacement.
  CHECK(load_error("transforms.f.type: io.debezium.transforms.ByLogicalTableRouter\n")
            .find("transforms.f.topic.regex: required by ByLogicalTableRouter") !=
        std::string::npos);
}
