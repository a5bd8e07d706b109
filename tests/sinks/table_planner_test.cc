#include "sinks/plan/table_planner.h"

#include <doctest/doctest.h>

#include "core/catalog/table_catalog.h"
#include "core/merge/merge_engine.h"

namespace sluice {
namespace {

struct planner_world {
  table_catalog catalog;
  merge_engine merger;
  apply_options options;
  table_entry* orders = catalog.intern(table_name{"", "Shop", "Orders"});

  planner_world() { options.connector = "test"; }

  change upsert(int id, int64_t n, image img, bool partial = false) {
    change c;
    c.table = orders;
    auto key = make_row_key({"ID"}, {value::number(std::to_string(id))});
    REQUIRE(key.ok());
    c.key = key.value();
    img.insert(img.begin(), {"ID", value::number(std::to_string(id))});
    c.after = std::move(img);
    c.partial = partial;
    c.seq = csn_builder().add(n).build();
    return c;
  }
};

TEST_CASE("tables route to lower-cased schema.table and columns fold to lower case") {
  planner_world w;
  table_planner planner(w.options);
  std::vector<dead_letter> rejects;
  const merged_batch batch = w.merger.merge({w.upsert(1, 1, {{"Name", value::string("a")}})});
  const std::vector<table_plan> plans = planner.plan(batch, rejects);
  CHECK(rejects.empty());
  REQUIRE(plans.size() == 1);
  CHECK(plans[0].target.schema == "shop");
  CHECK(plans[0].target.name == "orders");
  CHECK(plans[0].key_columns == std::vector<std::string>{"id"});
  CHECK(plans[0].key_kinds == std::vector<value_kind>{value_kind::number});
  REQUIRE(plans[0].columns.size() == 1);  // the key is not repeated as a column
  CHECK(plans[0].columns[0].name == "name");
  CHECK(plans[0].columns[0].kind == value_kind::string);
}

TEST_CASE("rows carrying different columns go to different statements") {
  planner_world w;
  table_planner planner(w.options);
  std::vector<dead_letter> rejects;
  const merged_batch batch =
      w.merger.merge({w.upsert(1, 1, {{"a", value::number("1")}}),
                      w.upsert(2, 1, {{"a", value::string("x")}, {"b", value::null()}}),
                      w.upsert(3, 1, {{"a", value::number("2")}})});
  const std::vector<table_plan> plans = planner.plan(batch, rejects);
  REQUIRE(plans.size() == 1);
  REQUIRE(plans[0].groups.size() == 2);
  CHECK(plans[0].groups[0].items == std::vector<uint32_t>{0, 2});
  CHECK(plans[0].groups[1].items == std::vector<uint32_t>{1});
  const planned_column* a = plans[0].find("a");
  REQUIRE(a);
  CHECK(a->mixed);  // numbers and a string: created as text
  const planned_column* b = plans[0].find("b");
  REQUIRE(b);
  CHECK(b->kind == value_kind::null);  // only nulls so far: text
}

TEST_CASE("two source names folding to one target name are an error, not a merge") {
  planner_world w;
  table_planner planner(w.options);
  std::vector<dead_letter> rejects;
  const merged_batch batch = w.merger.merge(
      {w.upsert(1, 1, {{"Total", value::number("1")}, {"TOTAL", value::number("2")}}),
       w.upsert(2, 1, {{"Total", value::number("3")}})});
  const std::vector<table_plan> plans = planner.plan(batch, rejects);
  REQUIRE(rejects.size() == 1);
  CHECK(rejects[0].reason.find("both map to \"total\"") != std::string::npos);
  CHECK(rejects[0].key == R"({"ID":1})");
  CHECK(plans[0].rejected == std::vector<uint8_t>{1, 0});

  // The same holds for a key column: "id" next to the key "ID".
  std::vector<dead_letter> more;
  const merged_batch keyed = w.merger.merge({w.upsert(3, 1, {{"id", value::number("3")}})});
  planner.plan(keyed, more);
  REQUIRE(more.size() == 1);
  CHECK(more[0].reason.find("\"ID\" and \"id\" both map to \"id\"") != std::string::npos);
}

TEST_CASE("bad input is dead-lettered with its reason, never dropped") {
  planner_world w;
  table_planner planner(w.options);
  std::vector<dead_letter> rejects;
  const merged_batch batch = w.merger.merge({
      w.upsert(1, 1, {{"_sluice_csn", value::string("mine")}}),
      w.upsert(2, 1, {{"note", value::string(std::string("a\0b", 3))}}),
      w.upsert(3, 1, {{std::string(64, 'c'), value::string("long")}}),
      w.upsert(4, 1, {{"note", value::string("fine")}}, /*partial=*/true),
      w.upsert(5, 1, {{"note", value::string("fine")}}),
  });
  const std::vector<table_plan> plans = planner.plan(batch, rejects);
  REQUIRE(rejects.size() == 3);
  CHECK(rejects[0].reason.find("reserved prefix") != std::string::npos);
  CHECK(rejects[1].reason.find("NUL") != std::string::npos);
  CHECK(rejects[2].reason.find("longer than 63 bytes") != std::string::npos);
  CHECK(plans[0].rejected == std::vector<uint8_t>{1, 1, 1, 0, 0});
  REQUIRE(plans[0].groups.size() == 1);
  CHECK(plans[0].groups[0].items == std::vector<uint32_t>{3, 4});
  CHECK(plans[0].partial);  // the table will keep per-column CSNs
}

TEST_CASE("partial images are refused under soft deletes") {
  planner_world w;
  w.options.deletes = apply_delete_mode::soft;
  table_planner planner(w.options);
  std::vector<dead_letter> rejects;
  const merged_batch batch =
      w.merger.merge({w.upsert(1, 1, {{"note", value::string("x")}}, /*partial=*/true)});
  planner.plan(batch, rejects);
  REQUIRE(rejects.size() == 1);
  CHECK(rejects[0].reason.find("delete.mode: soft") != std::string::npos);
}

TEST_CASE("keyless changes are appended, or dead-lettered under keyless: dead_letter") {
  planner_world w;
  change c;
  c.table = w.orders;
  c.after = {{"what", value::string("x")}, {"gone", value::absent()}};
  c.source.origin.topic = "cdc";
  c.source.origin.offset = kafka_offset(7);
  {
    table_planner planner(w.options);
    std::vector<dead_letter> rejects;
    const merged_batch batch = w.merger.merge({c});
    const auto plans = planner.plan(batch, rejects);
    REQUIRE(plans.size() == 1);
    CHECK(plans[0].keyless);
    REQUIRE(plans[0].columns.size() == 1);  // absent columns are not written
    CHECK(rejects.empty());
  }
  w.options.keyless = apply_keyless_mode::dead_letter;
  table_planner planner(w.options);
  std::vector<dead_letter> rejects;
  const merged_batch batch = w.merger.merge({c});
  planner.plan(batch, rejects);
  REQUIRE(rejects.size() == 1);
  CHECK(rejects[0].origin.offset == kafka_offset(7));
}

}  // namespace
}  // namespace sluice
