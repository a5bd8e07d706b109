#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "connector/prepare/preparer.h"
#include "connector/prepare/transforms/mask_field.h"
#include "tests/connector/prepare/prepare_fixture.h"

// Filter, InsertField, MaskField and ValueToKey (issue 30): Connect's transforms on decoded
// changes in prepare/, before the merge, each with its peer's semantics; and the merge's
// permutation property through them: any order and duplication of a history of messages gives
// the same rows.

using namespace sluice;

using namespace sluice::test;

namespace {

// The merged rows of a batch in a comparable, order-free form.
std::string describe(const std::vector<lane_batch>& lanes) {
  std::vector<std::string> tables;
  for (const lane_batch& l : lanes) {
    for (const table_rows& t : l.merged.tables) {
      std::string out = t.topic + " " + t.table->name.qualified() + "\n";
      for (const merged_row& r : t.rows) {
        std::string key;
        for (size_t i = 0; i < r.key.columns.size(); ++i)
          key += r.key.columns[i] + "=" + r.key.values[i].text + ",";
        out += key + " u=" + r.upsert_seq.hex() + " d=" + r.delete_seq.hex();
        std::vector<std::string> cols;
        for (const merged_column& c : r.columns)
          cols.push_back(c.name + "=" + c.v.text + "@" + c.seq.hex());
        std::sort(cols.begin(), cols.end());
        for (const std::string& c : cols)
          out += " " + c;
        out += "\n";
      }
      tables.push_back(std::move(out));
    }
  }
  std::sort(tables.begin(), tables.end());
  std::string out;
  for (const std::string& t : tables)
    out += t;
  return out;
}

}  // namespace

TEST_CASE("Filter drops the changes its predicate matches: deletes, a topic, and negated") {
  stage s(
      "transforms: [no_deletes, only_orders]\n"
      "transforms.no_deletes.type: org.apache.kafka.connect.transforms.Filter\n"
      "transforms.no_deletes.predicate: isDelete\n"
      "transforms.only_orders.type: Filter\n"
      "transforms.only_orders.predicate: isOrders\n"
      "transforms.only_orders.negate: true\n"
      "predicates: [isDelete, isOrders]\n"
      "predicates.isDelete.type: RecordIsTombstone\n"
      "predicates.isOrders.type: TopicNameMatches\n"
      "predicates.isOrders.pattern: \".*orders\"\n");
  source_message up = message(event(1, 10, R"(,"qty":2)"), 1);
  source_message del = message(event(2, 11, "", true), 2);
  source_message other = message(event(3, 12, ""), 3, "other");
  CHECK(s.prepare.add(up, 0) == preparer::verdict::decoded);
  CHECK(s.prepare.add(del, 0) == preparer::verdict::filtered);
  CHECK(s.prepare.add(other, 0) == preparer::verdict::filtered);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 1);
  REQUIRE(lanes[0].merged.tables[0].rows.size() == 1);
  CHECK(lanes[0].merged.tables[0].rows[0].key.values[0].text == "1");
}

TEST_CASE("InsertField adds the topic as routed, partition, offset, timestamp and a constant") {
  stage s(
      "transforms: [route, stamp]\n"
      "transforms.route.type: RegexRouter\n"
      "transforms.route.regex: \"dbserver1\\\\.public\\\\.(.*)\"\n"
      "transforms.route.replacement: \"$1\"\n"
      "transforms.stamp.type: org.apache.kafka.connect.transforms.InsertField$Value\n"
      "transforms.stamp.topic.field: src_topic\n"
      "transforms.stamp.partition.field: src_partition\n"
      "transforms.stamp.offset.field: src_offset!\n"
      "transforms.stamp.timestamp.field: src_ts?\n"
      "transforms.stamp.static.field: origin\n"
      "transforms.stamp.static.value: eu-west\n");
  source_message m = message(event(1, 10, R"(,"qty":2)"), 41);
  REQUIRE_MESSAGE(s.prepare.add(m, 0) == preparer::verdict::decoded, s.prepare.last_reason());
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 1);
  const table_rows& t = lanes[0].merged.tables[0];
  REQUIRE(t.rows.size() == 1);
  const merged_row& r = t.rows[0];
  REQUIRE(column(r, "src_topic") != nullptr);
  CHECK(column(r, "src_topic")->v.text == "orders");  // after the router listed before it
  CHECK(column(r, "src_partition")->v.text == "3");
  CHECK(column(r, "src_offset")->v.text == "41");
  CHECK(column(r, "src_ts")->v.text == "2026-01-01T00:00:00.123");
  CHECK(column(r, "origin")->v.text == "eu-west");
  CHECK(column(r, "qty")->v.text == "2");
  // Typed as Connect types them, for the columns sluice creates.
  REQUIRE(t.types.size() == 1);
  CHECK(t.types[0]->find("src_partition")->type.id == type_id::int32);
  CHECK(t.types[0]->find("src_offset")->type.id == type_id::int64);
  CHECK(t.types[0]->find("src_ts")->type.to_text() == "timestamp(3)");
  CHECK(t.types[0]->find("src_topic")->type.id == type_id::string);
  CHECK(t.types[0]->find("qty") == nullptr);  // an untyped format: the others stay untyped
}

TEST_CASE("InsertField refuses to overwrite a key column, and a required timestamp missing") {
  stage s(
      "transforms: [stamp]\n"
      "transforms.stamp.type: InsertField\n"
      "transforms.stamp.offset.field: id\n");
  source_message m = message(event(1, 10, ""), 41);
  CHECK(s.prepare.add(m, 0) == preparer::verdict::dead_lettered);
  CHECK(s.prepare.last_reason().find("transforms.stamp: id is a key column") != std::string::npos);

  stage required(
      "transforms: [stamp]\n"
      "transforms.stamp.type: InsertField\n"
      "transforms.stamp.timestamp.field: ts!\n");
  source_message untimed = message(event(1, 10, ""), 42);
  untimed.timestamp_ms = -1;
  CHECK(required.prepare.add(untimed, 0) == preparer::verdict::dead_lettered);
  CHECK(required.prepare.last_reason().find("no Kafka timestamp") != std::string::npos);
}

TEST_CASE("MaskField empties a value as Connect does for its type, or takes the replacement") {
  transform_config t;
  t.fields = {"n", "s", "b", "j", "d", "ts", "nothing", "absent"};
  mask_field mask("m", t);
  change c;
  c.key = make_row_key({"id"}, {value::number("1")}).value();
  c.after = {{"id", value::number("1")},
             {"n", value::number("12.5")},
             {"s", value::string("secret")},
             {"b", value::boolean(true)},
             {"j", value::json(R"({"a":1})")},
             {"d", value::string("2024-05-01")},
             {"ts", value::string("2024-05-01T10:00:00Z")},
             {"nothing", value::null()},
             {"absent", value::absent()},
             {"kept", value::string("visible")}};
  auto types = std::make_shared<column_types>();
  types->columns = {{"d", {type_id::date}, {}}, {"ts", {type_id::timestamptz}, {}}};
  c.types = types;
  raw_message raw;
  const record_context r{raw, "t"};
  REQUIRE(std::get<change_transform::outcome>(mask.apply(c, r)) == change_transform::outcome::keep);
  const auto text = [&](const std::string& name) {
    for (const column_value& cv : c.after) {
      if (cv.name == name) return cv.v;
    }
    return value::absent();
  };
  CHECK(text("id") == value::number("1"));
  CHECK(text("n") == value::number("0"));
  CHECK(text("s") == value::string(""));
  CHECK(text("b") == value::boolean(false));
  CHECK(text("j") == value::json("{}"));
  CHECK(text("d") == value::string("1970-01-01"));
  CHECK(text("ts") == value::string("1970-01-01T00:00:00Z"));
  CHECK(text("nothing") == value::null());
  CHECK(text("absent") == value::absent());
  CHECK(text("kept") == value::string("visible"));

  transform_config with;
  with.fields = {"n", "s"};
  with.replacement = "42";
  mask_field replace("m", with);
  change d;
  d.after = {{"n", value::number("7")}, {"s", value::string("x")}};
  REQUIRE(std::holds_alternative<change_transform::outcome>(replace.apply(d, r)));
  CHECK(d.after[0].v == value::number("42"));
  CHECK(d.after[1].v == value::string("42"));

  with.replacement = "***";
  mask_field stars("m", with);
  change e;
  e.after = {{"n", value::number("7")}};
  auto refused = stars.apply(e, r);
  REQUIRE(std::holds_alternative<std::string>(refused));
  CHECK(std::get<std::string>(refused).find("is not a number") != std::string::npos);

  with.replacement = "";
  with.fields = {"blob"};
  mask_field binary("m", with);
  change f;
  f.after = {{"blob", value::bytes("\x01\x02")}};
  auto cannot = binary.apply(f, r);
  REQUIRE(std::holds_alternative<std::string>(cannot));
  CHECK(std::get<std::string>(cannot).find("binary") != std::string::npos);
}

TEST_CASE("MaskField on a key column is a dead letter: every row would collapse onto one") {
  stage s(
      "transforms: [hide]\n"
      "transforms.hide.type: MaskField$Value\n"
      "transforms.hide.fields: [id, qty]\n");
  source_message m = message(event(1, 10, R"(,"qty":2)"), 1);
  CHECK(s.prepare.add(m, 0) == preparer::verdict::dead_lettered);
  CHECK(s.prepare.last_reason().find("id is a key column") != std::string::npos);
  CHECK(load_error("transforms.hide.type: MaskField\n").find("required by MaskField") !=
        std::string::npos);
}

TEST_CASE("ValueToKey makes the named columns the key: the merge collapses on them") {
  stage s(
      "transforms: [bymail]\n"
      "transforms.bymail.type: org.apache.kafka.connect.transforms.ValueToKey\n"
      "transforms.bymail.fields: [email]\n");
  source_message a = message(event(1, 10, R"(,"email":"a@x","qty":1)"), 1);
  source_message b = message(event(2, 11, R"(,"email":"a@x","qty":2)"), 2);
  source_message c = message(event(3, 12, R"(,"email":"c@x","qty":3)"), 3);
  source_message gone = message(event(3, 13, R"(,"email":"c@x")", true), 4);
  for (source_message* m : {&a, &b, &c, &gone})
    REQUIRE(s.prepare.add(*m, 0) == preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 1);
  const table_rows& t = lanes[0].merged.tables[0];
  REQUIRE(t.rows.size() == 2);  // two ids with one email are one row
  const merged_row& mail_a = t.rows[0].key.values[0].text == "a@x" ? t.rows[0] : t.rows[1];
  const merged_row& mail_c = &mail_a == &t.rows[0] ? t.rows[1] : t.rows[0];
  CHECK(mail_a.key.columns == std::vector<std::string>{"email"});
  CHECK(column(mail_a, "qty")->v.text == "2");  // the later change of that email
  CHECK(column(mail_a, "id")->v.text == "2");
  CHECK(mail_c.key.values[0].text == "c@x");
  CHECK_FALSE(mail_c.exists());  // the delete named its row by the email it carried

  source_message no_mail = message(event(4, 14, R"(,"qty":1)"), 5);
  CHECK(s.prepare.add(no_mail, 0) == preparer::verdict::dead_lettered);
  CHECK(s.prepare.last_reason().find("email is not in the row") != std::string::npos);
  source_message null_mail = message(event(5, 15, R"(,"email":null)"), 6);
  CHECK(s.prepare.add(null_mail, 0) == preparer::verdict::dead_lettered);
  CHECK(s.prepare.last_reason().find("email is null") != std::string::npos);
}

TEST_CASE(
    "through a chain of transforms, any order or duplication of a history gives the same "
    "rows") {
  const std::string chain =
      "transforms: [route, fields, no_deletes, stamp, hide, bymail]\n"
      "transforms.route.type: RegexRouter\n"
      "transforms.route.regex: \"dbserver1\\\\.public\\\\.(.*)\"\n"
      "transforms.route.replacement: \"$1\"\n"
      "transforms.route.predicate: isOrders\n"
      "transforms.fields.type: ReplaceField\n"
      "transforms.fields.renames: [\"mail:email\"]\n"
      "transforms.no_deletes.type: Filter\n"
      "transforms.no_deletes.predicate: isDelete\n"
      "transforms.stamp.type: InsertField\n"
      "transforms.stamp.offset.field: src_offset\n"
      "transforms.stamp.topic.field: src_topic\n"
      "transforms.hide.type: MaskField\n"
      "transforms.hide.fields: [secret]\n"
      "transforms.bymail.type: ValueToKey\n"
      "transforms.bymail.fields: [email]\n"
      "predicates: [isOrders, isDelete]\n"
      "predicates.isOrders.type: TopicNameMatches\n"
      "predicates.isOrders.pattern: \".*orders\"\n"
      "predicates.isDelete.type: RecordIsTombstone\n";
  std::mt19937_64 rng(30);
  for (int round = 0; round < 200; ++round) {
    struct sent {
      std::string value;
      int64_t offset;
      const char* topic;
    };
    std::vector<sent> history;
    const int n = 1 + static_cast<int>(rng() % 10);
    for (int i = 0; i < n; ++i) {
      const int id = static_cast<int>(rng() % 3);
      const int lsn = 100 + static_cast<int>(rng() % 6);  // equal CSNs happen
      const std::string mail = "m" + std::to_string(rng() % 2);
      const std::string columns = R"(,"mail":")" + mail + R"(","secret":"s)" +
                                  std::to_string(rng() % 3) + R"(","v":)" +
                                  std::to_string(rng() % 4);
      // A source table comes on one topic (the batch routes a table by its first change's).
      const bool other = rng() % 3 == 0;
      history.push_back({event(id, lsn, columns, rng() % 4 == 0, other ? "items" : "orders"), i + 1,
                         other ? "other" : "dbserver1.public.orders"});
    }
    const auto run = [&](const std::vector<sent>& messages) {
      stage s(chain);
      for (const sent& h : messages) {
        source_message m = message(h.value, h.offset, h.topic);
        const preparer::verdict v = s.prepare.add(m, 0);
        REQUIRE_MESSAGE(v != preparer::verdict::dead_lettered, s.prepare.last_reason());
      }
      return describe(s.prepare.take());
    };
    std::vector<sent> shuffled = history;
    for (int d = static_cast<int>(rng() % 4); d > 0; --d)
      shuffled.push_back(history[rng() % history.size()]);  // redelivered: same offset
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    INFO("round " << round);
    const std::string expected = run(history);
    if (expected.find("secret=") != std::string::npos)
      CHECK(expected.find("secret=s") == std::string::npos);  // masked, whatever the order
    CHECK(run(shuffled) == expected);
  }
}

TEST_CASE(
    "through Cast, TimestampConverter, unwrap and shards under a value key, any order or "
    "duplication of a history gives the same rows") {
  // The other transforms and a key mode, on two shards of one logical table: a change is
  // converted the same way whenever it comes, and the merge keeps its property through them.
  const std::string chain =
      "transforms: [shards, unwrap, cast, when]\n"
      "transforms.shards.type: io.debezium.transforms.ByLogicalTableRouter\n"
      "transforms.shards.topic.regex: \"(db[0-9])\\\\.public\\\\.orders\"\n"
      "transforms.shards.topic.replacement: \"logical.orders\"\n"
      "transforms.unwrap.type: io.debezium.transforms.ExtractNewRecordState\n"
      "transforms.unwrap.delete.tombstone.handling.mode: rewrite\n"
      "transforms.cast.type: Cast$Value\n"
      "transforms.cast.spec: [\"v:float64\"]\n"
      "transforms.when.type: TimestampConverter$Value\n"
      "transforms.when.field: at\n"
      "transforms.when.target.type: Timestamp\n"
      "primary.key.mode: record_value\n"
      "primary.key.fields: [__dbz__physicalTableIdentifier, id]\n";
  std::mt19937_64 rng(32);
  for (int round = 0; round < 150; ++round) {
    struct sent {
      std::string value;
      int64_t offset;
      const char* topic;
    };
    std::vector<sent> history;
    const int n = 1 + static_cast<int>(rng() % 10);
    for (int i = 0; i < n; ++i) {
      const int id = static_cast<int>(rng() % 2);  // shards share ids: they must stay apart
      const int lsn = 100 + static_cast<int>(rng() % 5);
      const std::string columns = R"(,"v":)" + std::to_string(rng() % 4) + R"(,"at":)" +
                                  std::to_string(1767225600000 + (rng() % 3) * 1000);
      history.push_back({event(id, lsn, columns, rng() % 4 == 0), i + 1,
                         rng() % 2 == 0 ? "db1.public.orders" : "db2.public.orders"});
    }
    const auto run = [&](const std::vector<sent>& messages) {
      stage s(chain);
      for (const sent& h : messages) {
        source_message m = message(h.value, h.offset, h.topic);
        const preparer::verdict v = s.prepare.add(m, 0);
        REQUIRE_MESSAGE(v == preparer::verdict::decoded, s.prepare.last_reason());
      }
      return describe(s.prepare.take());
    };
    std::vector<sent> shuffled = history;
    for (int d = static_cast<int>(rng() % 4); d > 0; --d)
      shuffled.push_back(history[rng() % history.size()]);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    INFO("round " << round);
    const std::string expected = run(history);
    CHECK(expected.rfind("logical.orders ", 0) == 0);  // both shards, one routed table
    CHECK(expected.find("__deleted=") != std::string::npos);
    CHECK(run(shuffled) == expected);
  }
}
