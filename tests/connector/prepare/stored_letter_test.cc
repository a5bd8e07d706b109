#include "connector/prepare/stored_letter.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/merge/merge_engine.h"
#include "sinks/plan/change_dead_letter.h"

namespace sluice {
namespace {

const std::string raw("\x00\xff\\\"", 4);

csn at(int64_t n) {
  return csn_builder().add(n).build();
}

change upsert(table_entry* t, int64_t seq, image after, bool partial = false) {
  change c;
  c.table = t;
  auto key = make_row_key({"id"}, {value::number("123456789012345678901234567890")});
  REQUIRE(key.ok());
  c.key = std::move(key.value());
  c.op = op_kind::upsert;
  c.seq = at(seq);
  c.after = std::move(after);
  c.partial = partial;
  return c;
}

// Merges changes, writes each row's dead letter, reads it back into a fresh catalog, merges
// what came back: the row must be the same (key, CSNs, columns with their CSNs and kinds).
void round_trip(std::vector<change> changes, const shared_column_types& types = {}) {
  for (change& c : changes)
    c.types = types;
  merge_engine merge;
  const merged_batch before = merge.merge(std::move(changes));
  REQUIRE(before.tables.size() == 1);
  const table_rows& t = before.tables[0];
  REQUIRE(t.rows.size() == 1);
  const dead_letter dl = merged_row_dead_letter(t, t.rows[0], "refused");
  CAPTURE(*dl.value);

  table_catalog fresh;
  std::vector<change> back;
  const auto err = read_stored_letter(*dl.value, fresh, back);
  REQUIRE_MESSAGE(!err, err->message);
  REQUIRE(!back.empty());
  CHECK(back[0].table->name == t.table->name);
  if (types) {
    REQUIRE(back[0].types != nullptr);
    CHECK(back[0].types->find("price")->type == types->find("price")->type);
  }
  merge_engine again;
  const merged_batch after = again.merge(std::move(back));
  REQUIRE(after.tables.size() == 1);
  const merged_row& a = t.rows[0];
  const merged_row& b = after.tables[0].rows.at(0);
  CHECK(b.key == a.key);
  CHECK(b.key.values == a.key.values);
  CHECK(b.upsert_seq == a.upsert_seq);
  CHECK(b.delete_seq == a.delete_seq);
  CHECK(b.partial == a.partial);
  REQUIRE(b.columns.size() == a.columns.size());
  for (const merged_column& ca : a.columns) {
    CAPTURE(ca.name);
    const auto it = std::find_if(b.columns.begin(), b.columns.end(),
                                 [&](const merged_column& cb) { return cb.name == ca.name; });
    REQUIRE(it != b.columns.end());
    CHECK(it->v == ca.v);
    CHECK(it->seq == ca.seq);
  }
}

TEST_CASE("a merged row's dead letter reads back as changes that merge to the same row") {
  table_catalog catalog;
  table_entry* t = catalog.intern(table_name{"db", "shop", "orders"});
  auto types = std::make_shared<column_types>();
  types->columns.push_back({"price", *column_type::parse("decimal(38,2)"), {}});

  SUBCASE("a full image of every kind, typed") {
    round_trip({upsert(t, 5,
                       {{"id", value::number("123456789012345678901234567890")},
                        {"price", value::number("123456789012345678901234567890123456.78")},
                        {"s", value::string("AP9cIg== \"quoted\"")},
                        {"b", value::bytes(raw)},
                        {"ok", value::boolean(false)},
                        {"doc", value::json(R"({"a":[1,2.50,null]})")},
                        {"gone", value::null()}})},
               types);
  }
  SUBCASE("partial images at their own CSNs") {
    round_trip({upsert(t, 5, {{"id", value::number("1")}, {"a", value::string("x")}}, true),
                upsert(t, 7, {{"id", value::number("1")}, {"b", value::number("2")}}, true)});
  }
  SUBCASE("a delete, then an insert after it") {
    change d = upsert(t, 3, {});
    d.op = op_kind::remove;
    round_trip({d, upsert(t, 9, {{"id", value::number("1")}, {"a", value::string("y")}})});
  }
  SUBCASE("a delete alone") {
    change d = upsert(t, 3, {});
    d.op = op_kind::remove;
    round_trip({d});
  }
}

TEST_CASE("a keyless change's dead letter reads back as that change") {
  table_catalog catalog;
  table_rows rows;
  rows.table = catalog.intern(table_name{"", "shop", "events"});
  change c;
  c.table = rows.table;
  c.seq = at(4);
  c.after = {{"s", value::string("x")}, {"b", value::bytes(raw)}, {"n", value::number("1e400")}};
  const dead_letter dl = keyless_dead_letter(rows, c, "refused");
  table_catalog fresh;
  std::vector<change> back;
  REQUIRE(!read_stored_letter(*dl.value, fresh, back));
  REQUIRE(back.size() == 1);
  CHECK(back[0].op == op_kind::upsert);
  CHECK(back[0].seq == c.seq);
  CHECK(back[0].after == c.after);
  CHECK(back[0].key.empty());
  CHECK(back[0].table->name.table == "events");
}

TEST_CASE("a stored letter that is not one is an error saying why, never a crash") {
  table_catalog catalog;
  std::vector<change> out;
  for (const char* bad : {"", "[]", "{", R"({"table":"x","op":"upsert"})",
                          R"({"op":"upsert","image":{},"source":["","s"]})",
                          R"({"op":"upsert","image":{},"source":["","s","t"],"csn":"zz"})",
                          R"({"op":"upsert","image":{"b":"!!"},"bytes_columns":["b"],)"
                          R"("source":["","s","t"],"csn":"01"})"}) {
    CAPTURE(bad);
    const auto err = read_stored_letter(bad, catalog, out);
    REQUIRE(err);
    CHECK(err->message.starts_with("stored letter: "));
  }
  // Letters from before "source" was written say what to do instead.
  const auto old = read_stored_letter(
      R"({"table":"s.t","op":"upsert","key":{"id":1},"upsert_csn":"01","delete_csn":"",)"
      R"("partial":false,"image":{"id":1}})",
      catalog, out);
  REQUIRE(old);
  CHECK(old->message.find("replay its topic") != std::string::npos);
}

TEST_CASE("a stored letter's headers read back as names and bytes, null values kept") {
  auto h = read_stored_headers(
      R"([{"key":"trace","value":"abc"},{"key":"bin","value_hex":"00ff"},{"key":"n","value":null}])");
  REQUIRE(h.ok());
  REQUIRE(h->size() == 3);
  CHECK((*h)[0] == std::pair<std::string, std::optional<std::string>>{"trace", "abc"});
  CHECK((*h)[1].second == std::string("\x00\xff", 2));
  CHECK(!(*h)[2].second);
  CHECK(read_stored_headers("[]")->empty());
  CHECK(!read_stored_headers(R"([{"value":"x"}])").ok());
  CHECK(!read_stored_headers(R"([{"key_hex":"zz"}])").ok());
}

}  // namespace
}  // namespace sluice
