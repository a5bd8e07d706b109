#include "core/merge/merge_engine.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>

namespace sluice {
namespace {

struct fixture {
  table_catalog catalog;
  table_entry* table = catalog.intern({"db", "shop", "orders"});

  change upsert(int64_t id, int64_t seq, image img, bool partial = false) {
    change c;
    c.op = op_kind::upsert;
    c.table = table;
    c.key = *make_row_key({"id"}, {value::number(std::to_string(id))});
    c.after = std::move(img);
    c.partial = partial;
    c.seq = csn_builder().add(1).add(seq).build();
    return c;
  }
  change remove(int64_t id, int64_t seq) {
    change c = upsert(id, seq, {});
    c.op = op_kind::remove;
    return c;
  }
  change rekey(int64_t from, int64_t to, int64_t seq, image img) {
    change c = upsert(to, seq, std::move(img));
    c.old_key = *make_row_key({"id"}, {value::number(std::to_string(from))});
    return c;
  }
};

image row(std::initializer_list<std::pair<const char*, const char*>> cols) {
  image img;
  for (auto& [name, text] : cols)
    img.push_back({name, value::string(text)});
  return img;
}

// A merged batch in a comparable, order-free form.
std::string describe(const merged_batch& b) {
  std::string out;
  for (const table_rows& t : b.tables) {
    out += t.table->name.qualified() + "\n";
    for (const merged_row& r : t.rows) {
      out += r.key.values[0].text + " u=" + r.upsert_seq.hex() + " d=" + r.delete_seq.hex() +
             (r.exists() ? " exists" : " gone");
      std::vector<std::string> cols;
      for (const merged_column& c : r.columns)
        cols.push_back(c.name + "=" + c.v.text + "@" + c.seq.hex());
      std::sort(cols.begin(), cols.end());
      for (auto& c : cols)
        out += " " + c;
      out += "\n";
    }
  }
  return out;
}

const merged_row* find(const merged_batch& b, const std::string& id) {
  for (const table_rows& t : b.tables) {
    for (const merged_row& r : t.rows) {
      if (r.key.values[0].text == id) return &r;
    }
  }
  return nullptr;
}

std::string column(const merged_row& r, const std::string& name) {
  for (const merged_column& c : r.columns) {
    if (c.name == name) return c.v.text;
  }
  return "<none>";
}

}  // namespace

TEST_CASE("a late older update after a newer one loses in the merge") {
  fixture f;
  std::vector<change> in;
  in.push_back(f.upsert(1, 20, row({{"id", "1"}, {"v", "new"}})));
  in.push_back(f.upsert(1, 10, row({{"id", "1"}, {"v", "old"}})));
  merge_engine m;
  merged_batch b = m.merge(std::move(in));
  REQUIRE(b.stats.rows == 1);
  CHECK(column(*find(b, "1"), "v") == "new");
  CHECK(b.stats.collapsed == 1);
}

TEST_CASE("insert, delete, insert of one key in one batch leaves the last insert") {
  fixture f;
  std::vector<change> in;
  in.push_back(f.upsert(1, 1, row({{"id", "1"}, {"v", "a"}})));
  in.push_back(f.remove(1, 2));
  in.push_back(f.upsert(1, 3, row({{"id", "1"}, {"v", "b"}})));
  merged_batch b = merge_engine().merge(std::move(in));
  const merged_row* r = find(b, "1");
  REQUIRE(r);
  CHECK(r->exists());
  CHECK(column(*r, "v") == "b");
  CHECK(r->delete_seq == csn_builder().add(1).add(2).build());
}

TEST_CASE("a delete newer than every upsert removes the key") {
  fixture f;
  std::vector<change> in;
  in.push_back(f.upsert(1, 5, row({{"id", "1"}, {"v", "a"}})));
  in.push_back(f.remove(1, 6));
  merged_batch b = merge_engine().merge(std::move(in));
  const merged_row* r = find(b, "1");
  REQUIRE(r);
  CHECK_FALSE(r->exists());
  CHECK(r->columns.empty());
}

TEST_CASE("at equal CSN an upsert beats a delete (a key vacated and re-taken)") {
  fixture f;
  std::vector<change> in;
  // UPDATE t SET id = id + 1 over ids 1 and 2 at one binlog position.
  in.push_back(f.rekey(1, 2, 7, row({{"id", "2"}, {"v", "was1"}})));
  in.push_back(f.rekey(2, 3, 7, row({{"id", "3"}, {"v", "was2"}})));
  merged_batch b = merge_engine().merge(std::move(in));
  CHECK_FALSE(find(b, "1")->exists());
  REQUIRE(find(b, "2")->exists());
  CHECK(column(*find(b, "2"), "v") == "was1");
  CHECK(column(*find(b, "3"), "v") == "was2");
}

TEST_CASE("a key change deletes the old key and upserts the new one") {
  fixture f;
  std::vector<change> in;
  in.push_back(f.upsert(1, 1, row({{"id", "1"}, {"v", "a"}})));
  in.push_back(f.rekey(1, 2, 2, row({{"id", "2"}, {"v", "a"}})));
  in.push_back(f.rekey(2, 1, 3, row({{"id", "1"}, {"v", "back"}})));
  merged_batch b = merge_engine().merge(std::move(in));
  CHECK(find(b, "1")->exists());
  CHECK(column(*find(b, "1"), "v") == "back");
  CHECK_FALSE(find(b, "2")->exists());
}

TEST_CASE("a merged row carries the origin of its newest change, key changes included") {
  fixture f;
  auto at = [](change c, int64_t offset) {
    c.source.origin.topic = "cdc.orders.with.a.long.topic.name";
    c.source.origin.offset = kafka_offset(offset);
    return c;
  };
  std::vector<change> in;
  in.push_back(at(f.upsert(1, 5, row({{"v", "newest"}})), 10));
  in.push_back(at(f.upsert(1, 3, row({{"v", "older"}})), 11));
  // Offset 12 moves key 2 to key 3: both merged rows come from it.
  in.push_back(at(f.rekey(2, 3, 7, row({{"v", "moved"}})), 12));
  merged_batch b = merge_engine().merge(std::move(in));
  for (const char* key : {"1", "2", "3"}) {
    CAPTURE(key);
    REQUIRE(find(b, key));
    CHECK(find(b, key)->origin.topic == "cdc.orders.with.a.long.topic.name");
  }
  CHECK(find(b, "1")->origin.offset.value() == 10);
  CHECK(find(b, "2")->origin.offset.value() == 12);
  CHECK(find(b, "3")->origin.offset.value() == 12);
}

TEST_CASE("a table's rows say the topic it came on, truncates alone included") {
  fixture f;
  table_entry* other = f.catalog.intern({"db", "shop", "items"});
  std::vector<change> in;
  change keyed = f.upsert(1, 5, row({{"v", "x"}}));
  keyed.source.origin.topic = "dbserver1.shop.orders";
  in.push_back(std::move(keyed));
  change truncate;
  truncate.op = op_kind::truncate;
  truncate.table = other;
  truncate.seq = csn_builder().add(1).add(9).build();
  truncate.source.origin.topic = "dbserver1.shop.items";
  in.push_back(std::move(truncate));
  merged_batch b = merge_engine().merge(std::move(in));
  REQUIRE(b.tables.size() == 2);
  // By name: items, then orders. ${topic} naming routes keyed tables by it too, not only
  // keyless ones.
  CHECK(b.tables[0].topic == "dbserver1.shop.items");
  CHECK(b.tables[1].topic == "dbserver1.shop.orders");
}

TEST_CASE("a partial update merges column by column with an older full row") {
  fixture f;
  std::vector<change> in;
  in.push_back(f.upsert(1, 9, row({{"id", "1"}, {"b", "new-b"}}), /*partial=*/true));
  in.push_back(f.upsert(1, 4, row({{"id", "1"}, {"a", "old-a"}, {"b", "old-b"}})));
  merged_batch b = merge_engine().merge(std::move(in));
  const merged_row* r = find(b, "1");
  CHECK(r->partial);
  CHECK(column(*r, "a") == "old-a");
  CHECK(column(*r, "b") == "new-b");
}

TEST_CASE("duplicates are dropped and different images at one CSN are counted as conflicts") {
  fixture f;
  std::vector<change> in;
  in.push_back(f.upsert(1, 3, row({{"id", "1"}, {"v", "x"}})));
  in.push_back(f.upsert(1, 3, row({{"id", "1"}, {"v", "x"}})));
  in.push_back(f.upsert(2, 3, row({{"id", "2"}, {"v", "p"}})));
  in.push_back(f.upsert(2, 3, row({{"id", "2"}, {"v", "q"}})));
  merged_batch b = merge_engine().merge(std::move(in));
  CHECK(b.stats.duplicates == 1);
  CHECK(b.stats.csn_conflicts == 1);
  CHECK(column(*find(b, "2"), "v") == "q");  // the greater value, whatever the order
}

TEST_CASE("any permutation or duplication of a history merges to the same batch") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 500; ++round) {
    fixture f;
    std::vector<change> history;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      const int64_t id = static_cast<int64_t>(rng() % 3);
      const int64_t seq = static_cast<int64_t>(rng() % 8);  // equal CSNs happen
      const std::string v = std::to_string(rng() % 4);
      switch (rng() % 5) {
        case 0:
          history.push_back(f.remove(id, seq));
          break;
        case 1:
          history.push_back(f.upsert(id, seq, row({{"id", "k"}, {"b", v.c_str()}}), true));
          break;
        case 2:
          history.push_back(
              f.rekey((id + 1) % 3, id, seq, row({{"id", "k"}, {"a", v.c_str()}, {"b", "r"}})));
          break;
        default:
          history.push_back(
              f.upsert(id, seq, row({{"id", "k"}, {"a", v.c_str()}, {"b", v.c_str()}})));
      }
    }
    std::vector<change> shuffled = history;
    for (int d = static_cast<int>(rng() % 4); d > 0; --d)
      shuffled.push_back(history[rng() % n]);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    merge_engine m;
    const std::string expected = describe(m.merge(std::vector<change>(history)));
    INFO("round " << round);
    CHECK(describe(m.merge(std::move(shuffled))) == expected);
  }
}

TEST_CASE("the merged row equals the state SPEC §4 defines from the history") {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 500; ++round) {
    fixture f;
    std::vector<change> history;
    // Oracle state for key 0.
    csn max_up, max_del;
    std::map<std::string, std::pair<csn, std::string>> cols;
    bool any_up = false;
    for (int i = 0, n = 1 + static_cast<int>(rng() % 8); i < n; ++i) {
      const int64_t seq = static_cast<int64_t>(rng() % 6);
      const csn s = csn_builder().add(1).add(seq).build();
      const std::string v = std::to_string(round) + "-" + std::to_string(i);
      if (rng() % 3 == 0) {
        history.push_back(f.remove(0, seq));
        max_del = std::max(max_del, s);
        continue;
      }
      image img = rng() % 2 ? row({{"id", "0"}, {"a", v.c_str()}})
                            : row({{"id", "0"}, {"a", v.c_str()}, {"b", v.c_str()}});
      for (auto& cv : img) {
        auto [it, fresh] = cols.try_emplace(cv.name, s, cv.v.text);
        auto& slot = it->second;
        if (!fresh && (s > slot.first || (s == slot.first && cv.v.text > slot.second))) {
          slot = {s, cv.v.text};
        }
      }
      max_up = any_up ? std::max(max_up, s) : s;
      any_up = true;
      history.push_back(f.upsert(0, seq, std::move(img), true));
    }
    std::shuffle(history.begin(), history.end(), rng);
    merged_batch b = merge_engine().merge(std::move(history));
    const merged_row* r = find(b, "0");
    REQUIRE(r);
    const bool exists = any_up && max_up >= max_del;
    INFO("round " << round);
    CHECK(r->exists() == exists);
    if (!exists) continue;
    for (auto& [name, slot] : cols) {
      // A column last set below the newest delete reads NULL (it is not carried).
      CHECK(column(*r, name) == (slot.first < max_del ? "<none>" : slot.second));
    }
  }
}

}  // namespace sluice
