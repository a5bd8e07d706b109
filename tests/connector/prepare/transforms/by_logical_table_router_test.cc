#include "connector/prepare/transforms/by_logical_table_router.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "connector/prepare/preparer.h"
#include "connector/prepare/transforms/transform_chain.h"
#include "tests/connector/prepare/prepare_fixture.h"

// Debezium's ByLogicalTableRouter (SPEC §6a "Transforms"): the shards of a logical table renamed
// onto one topic, each change's key extended by the column that names its shard, so that the
// shards land in one target with their rows kept apart.

using namespace sluice;
using namespace sluice::test;

namespace {

constexpr const char* shards =
    "transforms: [shards]\n"
    "transforms.shards.type: io.debezium.transforms.ByLogicalTableRouter\n"
    "transforms.shards.topic.regex: \"(db[0-9]+)\\\\.public\\\\.orders\"\n"
    "transforms.shards.topic.replacement: \"all.public.orders\"\n";

std::vector<std::string> names(const merged_row& row) {
  std::vector<std::string> out;
  for (const merged_column& c : row.columns)
    out.push_back(c.name);
  std::sort(out.begin(), out.end());
  return out;
}

preparer::verdict add(stage& s, std::string value, int64_t offset, const char* topic) {
  source_message m = message(std::move(value), offset, topic);
  return s.prepare.add(m, 0);
}

}  // namespace

TEST_CASE("ByLogicalTableRouter renames the shards' topics onto the logical one") {
  by_logical_table_router r("shards", load(shards).transform_settings.at("shards"));
  CHECK(r.route("db1.public.orders") == "all.public.orders");
  CHECK(r.route("db22.public.orders") == "all.public.orders");
  // Matched whole only (Java's matches()); others stay as they came.
  CHECK(r.route("db1.public.orders.x") == "db1.public.orders.x");
  CHECK(r.route("other") == "other");
  CHECK(r.shard_column() == "__dbz__physicalTableIdentifier");

  transform_chain chain(load(shards));
  CHECK(chain.routes());
  CHECK(chain.topic("db1.public.orders") == "all.public.orders");
}

TEST_CASE("two shards' rows with one id stay two rows, each keyed and tagged by its shard") {
  stage s(shards);
  REQUIRE(add(s, event(1, 100, R"(,"qty":2)"), 1, "db1.public.orders") ==
          preparer::verdict::decoded);
  REQUIRE(add(s, event(1, 101, R"(,"qty":3)"), 2, "db2.public.orders") ==
          preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 1);  // Datastream names one source table
  const table_rows& t = lanes[0].merged.tables[0];
  CHECK(t.topic == "all.public.orders");  // what ${topic} routes by
  REQUIRE(t.rows.size() == 2);
  CHECK(lanes[0].merged.stats.collapsed == 0);
  for (const merged_row& row : t.rows) {
    CHECK(row.key.columns == std::vector<std::string>{"id", "__dbz__physicalTableIdentifier"});
    CHECK(names(row) == std::vector<std::string>{"__dbz__physicalTableIdentifier", "id", "qty"});
    const merged_column* shard = column(row, "__dbz__physicalTableIdentifier");
    REQUIRE(shard != nullptr);
    CHECK(shard->v.kind == value_kind::string);
    CHECK(shard->v.text == row.key.values[1].text);
  }
  std::vector<std::string> tags{t.rows[0].key.values[1].text, t.rows[1].key.values[1].text};
  std::sort(tags.begin(), tags.end());
  // The topic as it came names the shard.
  CHECK(tags == std::vector<std::string>{"db1.public.orders", "db2.public.orders"});
}

TEST_CASE("key.field.regex and key.field.replacement make the shard's value") {
  stage s(std::string(shards) +
          "transforms.shards.key.field.name: shard\n"
          "transforms.shards.key.field.regex: \"db([0-9]+)\\\\..*\"\n"
          "transforms.shards.key.field.replacement: \"s$1\"\n");
  REQUIRE(add(s, event(7, 100, ""), 1, "db3.public.orders") == preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 1);
  const merged_row& row = lanes[0].merged.tables[0].rows.at(0);
  CHECK(row.key.columns == std::vector<std::string>{"id", "shard"});
  CHECK(row.key.values[1].text == "s3");
  REQUIRE(column(row, "shard") != nullptr);
  CHECK(column(row, "shard")->v.text == "s3");
}

TEST_CASE("the shard column is typed string beside the stream's types, once per schema") {
  transform_config t;
  t.topic_regex = "db(.)";
  t.topic_replacement = "all";
  by_logical_table_router r("shards", t);
  auto types = std::make_shared<column_types>();
  types->columns.push_back({"id", column_type{}, {}});
  const shared_column_types from = types;
  const raw_message raw;
  auto make = [&] {
    change c;
    c.key.columns = {"id"};
    c.key.values = {value::number("1")};
    REQUIRE_FALSE(canonicalize_key(c.key));
    c.after = {{"id", value::number("1")}};
    c.types = from;
    return c;
  };
  change a = make(), b = make();
  REQUIRE(std::get<change_transform::outcome>(r.apply(a, {raw, "db1"})) ==
          change_transform::outcome::keep);
  REQUIRE(std::get<change_transform::outcome>(r.apply(b, {raw, "db2"})) ==
          change_transform::outcome::keep);
  REQUIRE(a.types);
  CHECK(a.types == b.types);  // shared, not rebuilt per change
  const column_types::column* shard = a.types->find("__dbz__physicalTableIdentifier");
  REQUIRE(shard != nullptr);
  CHECK(shard->type.id == type_id::string);
  CHECK(a.key.canonical != b.key.canonical);
}

TEST_CASE("a key change carries the shard in both keys, and a truncate is scoped to its shard") {
  transform_config t;
  t.topic_regex = "db(.)";
  t.topic_replacement = "all";
  t.key_field_name = "shard";
  by_logical_table_router r("shards", t);
  const raw_message raw;
  change c;
  c.key.columns = {"id"};
  c.key.values = {value::number("2")};
  REQUIRE_FALSE(canonicalize_key(c.key));
  c.old_key = c.key;
  c.old_key->values = {value::number("1")};
  REQUIRE_FALSE(canonicalize_key(*c.old_key));
  REQUIRE(std::holds_alternative<change_transform::outcome>(r.apply(c, {raw, "db1"})));
  CHECK(c.key.columns == std::vector<std::string>{"id", "shard"});
  CHECK(c.old_key->columns == std::vector<std::string>{"id", "shard"});
  CHECK(c.old_key->values[1].text == "db1");

  change truncate;
  truncate.op = op_kind::truncate;
  REQUIRE(std::holds_alternative<change_transform::outcome>(r.apply(truncate, {raw, "db1"})));
  CHECK(truncate.key.columns == std::vector<std::string>{"shard"});
  CHECK(truncate.key.values[0].text == "db1");
  CHECK(truncate.after.empty());

  // A topic the regex does not match passes untouched, truncates too.
  change other;
  other.op = op_kind::truncate;
  REQUIRE(std::holds_alternative<change_transform::outcome>(r.apply(other, {raw, "x"})));
  CHECK(other.key.empty());
}

TEST_CASE("key.enforce.uniqueness false renames the topic and leaves keys as they are") {
  stage s(std::string(shards) + "transforms.shards.key.enforce.uniqueness: \"false\"\n");
  REQUIRE(add(s, event(1, 100, ""), 1, "db1.public.orders") == preparer::verdict::decoded);
  REQUIRE(add(s, event(1, 101, ""), 2, "db2.public.orders") == preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  const table_rows& t = lanes[0].merged.tables.at(0);
  CHECK(t.topic == "all.public.orders");
  REQUIRE(t.rows.size() == 1);  // one key: they collide, as in Debezium
  CHECK(t.rows[0].key.columns == std::vector<std::string>{"id"});
}

TEST_CASE("a key that already has the shard column is a dead letter") {
  stage s(std::string(shards) + "transforms.shards.key.field.name: id\n");
  CHECK(add(s, event(1, 100, ""), 1, "db1.public.orders") == preparer::verdict::dead_lettered);
  CHECK(s.prepare.last_reason().find("already has id (key.field.name)") != std::string::npos);
}

TEST_CASE("ByLogicalTableRouter runs under a TopicNameMatches predicate, seeing its own topic") {
  stage s(std::string(shards) +
          "transforms.shards.predicate: first\n"
          "predicates: {first: {type: TopicNameMatches, pattern: \"db1\\\\..*\"}}\n");
  REQUIRE(add(s, event(1, 100, ""), 1, "db1.public.orders") == preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  const table_rows& t = lanes[0].merged.tables.at(0);
  CHECK(t.topic == "all.public.orders");
  CHECK(t.rows.at(0).key.columns.size() == 2);
  REQUIRE(add(s, event(1, 101, ""), 2, "db2.public.orders") == preparer::verdict::decoded);
  lanes = s.prepare.take();
  const table_rows& u = lanes[0].merged.tables.at(0);
  CHECK(u.topic == "db2.public.orders");  // the predicate did not match: untouched
  CHECK(u.rows.at(0).key.columns == std::vector<std::string>{"id"});
}

TEST_CASE("ByLogicalTableRouter's settings are checked at load, as Debezium checks them") {
  CHECK(load_error("transforms.r.type: ByLogicalTableRouter\n"
                   "transforms.r.topic.regex: a\n")
            .find("transforms.r.topic.replacement: required by ByLogicalTableRouter") !=
        std::string::npos);
  CHECK(load_error("transforms.r.type: ByLogicalTableRouter\n"
                   "transforms.r.topic.replacement: a\n")
            .find("transforms.r.topic.regex: required by ByLogicalTableRouter") !=
        std::string::npos);
  CHECK(load_error("transforms.r.type: ByLogicalTableRouter\n"
                   "transforms.r.topic.regex: \"(a)\"\n"
                   "transforms.r.topic.replacement: \"$2\"\n")
            .find("$2 names no group") != std::string::npos);
  CHECK(load_error("transforms.r.type: ByLogicalTableRouter\n"
                   "transforms.r.topic.regex: a\ntransforms.r.topic.replacement: b\n"
                   "transforms.r.key.field.regex: \"(a)\"\n")
            .find("must be non-empty if key.field.regex is set") != std::string::npos);
  CHECK(load_error("transforms.r.type: ByLogicalTableRouter\n"
                   "transforms.r.topic.regex: a\ntransforms.r.topic.replacement: b\n"
                   "transforms.r.key.enforce.uniqueness: maybe\n")
            .find("must be one of true, false") != std::string::npos);
  CHECK(load_error("transforms.r.type: ByLogicalTableRouter\n"
                   "transforms.r.topic.regex: a\ntransforms.r.topic.replacement: b\n"
                   "transforms.r.schema.name.adjustment.mode: avro2\n")
            .find("must be one of none, avro, avro_unicode") != std::string::npos);
  CHECK(load_error("transforms.r.type: ByLogicalTableRouter\n"
                   "transforms.r.topic.regex: a\ntransforms.r.topic.replacement: b\n"
                   "transforms.r.logical.table.cache.size: 0\n")
            .find("must be a positive integer") != std::string::npos);
  CHECK(load_error("transforms.r.type: ByLogicalTableRouter\n"
                   "transforms.r.topic.regex: a\ntransforms.r.topic.replacement: b\n"
                   "transforms.r.regex: a\n")
            .find("is not a setting of ByLogicalTableRouter") != std::string::npos);
  CHECK(load_error("transforms.r.type: ByLogicalTableRouter\n"
                   "transforms.r.topic.regex: a\ntransforms.r.topic.replacement: b\n"
                   "transforms.r.predicate: p\n"
                   "predicates.p.type: RecordIsTombstone\n")
            .find("a ByLogicalTableRouter runs on topics: only under a TopicNameMatches") !=
        std::string::npos);
  // Debezium's package, not Connect's.
  CHECK(load_error("transforms.r.type: org.apache.kafka.connect.transforms.ByLogicalTableRouter\n"
                   "transforms.r.topic.regex: a\ntransforms.r.topic.replacement: b\n")
            .find("unknown transform type") != std::string::npos);
  // Every option Debezium documents loads.
  CHECK(load_error("transforms.r.type: io.debezium.transforms.ByLogicalTableRouter\n"
                   "transforms.r.topic.regex: \"(.*)customers_shard(.*)\"\n"
                   "transforms.r.topic.replacement: \"$1customers_all_shards\"\n"
                   "transforms.r.key.enforce.uniqueness: \"true\"\n"
                   "transforms.r.key.field.name: shard_id\n"
                   "transforms.r.key.field.regex: \"(.*)customers_shard(.*)\"\n"
                   "transforms.r.key.field.replacement: \"$2\"\n"
                   "transforms.r.schema.name.adjustment.mode: none\n"
                   "transforms.r.logical.table.cache.size: 16\n") == "");
}
