#include "connector/prepare/key_mode_step.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "connector/prepare/preparer.h"
#include "tests/connector/prepare/prepare_fixture.h"

// primary.key.mode and insert.mode (issue 30) in prepare/: where a row's key comes from, and
// the append modes that never collapse by key, each appended change carrying its position.

using namespace sluice;

using namespace sluice::test;

namespace {

// The appended changes of a batch, once per source position (what the sink writes: a
// position already written is skipped), in a comparable, order-free form.
std::string appended(const std::vector<lane_batch>& lanes) {
  std::set<std::string> rows;
  for (const lane_batch& l : lanes) {
    for (const table_rows& t : l.merged.tables) {
      CHECK(t.rows.empty());  // an append mode keys nothing
      for (const change& c : t.keyless) {
        const message_origin& o = c.source.origin;
        std::string row = o.topic + "/" + std::to_string(o.partition.value()) + "/" +
                          std::to_string(o.offset.value()) + "/" + std::to_string(o.index) + " " +
                          to_string(c.op) + " " + c.seq.hex();
        std::vector<std::string> cols;
        for (const column_value& cv : c.after)
          cols.push_back(cv.name + "=" + cv.v.text);
        std::sort(cols.begin(), cols.end());
        for (const std::string& col : cols)
          row += " " + col;
        rows.insert(row);
      }
    }
  }
  std::string out;
  for (const std::string& r : rows)
    out += r + "\n";
  return out;
}

}  // namespace

TEST_CASE("record_value keys rows by the value's columns, deletes off as in Connect") {
  stage s("primary.key.mode: record_value\nprimary.key.fields: [email]\n");
  CHECK_FALSE(s.cfg.deletes.enabled);  // unset: the peers' default for a mode but record_key
  source_message a = message(event(1, 10, R"(,"email":"a@x","qty":1)"), 1);
  source_message b = message(event(2, 11, R"(,"email":"a@x","qty":2)"), 2);
  REQUIRE(s.prepare.add(a, 0) == preparer::verdict::decoded);
  REQUIRE(s.prepare.add(b, 0) == preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  REQUIRE(lanes[0].merged.tables.size() == 1);
  const table_rows& t = lanes[0].merged.tables[0];
  REQUIRE(t.rows.size() == 1);  // one email, one row
  CHECK(t.rows[0].key.columns == std::vector<std::string>{"email"});
  CHECK(column(t.rows[0], "qty")->v.text == "2");

  stage all("primary.key.mode: record_value\n");  // no fields: every column of the value
  source_message c = message(event(1, 10, R"(,"v":1)"), 1);
  REQUIRE(all.prepare.add(c, 0) == preparer::verdict::decoded);
  lanes = all.prepare.take();
  CHECK(lanes[0].merged.tables[0].rows[0].key.columns == std::vector<std::string>{"id", "v"});
}

TEST_CASE("record_key with primary.key.fields keeps those key columns, refuses others") {
  stage s("primary.key.mode: record_key\nprimary.key.fields: [id]\n");
  CHECK(s.cfg.deletes.enabled);  // record_key: deletes as configured (sluice's default)
  source_message a = message(event(1, 10, ""), 1);
  REQUIRE(s.prepare.add(a, 0) == preparer::verdict::decoded);
  stage wrong("primary.key.fields: [qty]\n");
  source_message b = message(event(1, 10, R"(,"qty":1)"), 1);
  CHECK(wrong.prepare.add(b, 0) == preparer::verdict::dead_lettered);
  CHECK(wrong.prepare.last_reason().find("qty (primary.key.fields) is not a key column") !=
        std::string::npos);
}

TEST_CASE("record_header keys rows by the named headers, written as columns") {
  stage s("primary.key.mode: record_header\nprimary.key.fields: [tenant]\n");
  source_message a = message(event(1, 10, R"(,"v":1)"), 1);
  a.raw.headers.emplace_back("tenant", "acme");
  a.raw.headers.emplace_back("trace", "t1");
  source_message b = message(event(2, 11, R"(,"v":2)"), 2);
  b.raw.headers.emplace_back("tenant", "acme");
  REQUIRE(s.prepare.add(a, 0) == preparer::verdict::decoded);
  REQUIRE(s.prepare.add(b, 0) == preparer::verdict::decoded);
  source_message none = message(event(3, 12, R"(,"v":3)"), 3);
  CHECK(s.prepare.add(none, 0) == preparer::verdict::dead_lettered);
  CHECK(s.prepare.last_reason().find("no header tenant") != std::string::npos);
  std::vector<lane_batch> lanes = s.prepare.take();
  const table_rows& t = lanes[0].merged.tables[0];
  REQUIRE(t.rows.size() == 1);  // one tenant, one row
  CHECK(t.rows[0].key.columns == std::vector<std::string>{"tenant"});
  CHECK(column(t.rows[0], "tenant")->v.text == "acme");
  CHECK(column(t.rows[0], "v")->v.text == "2");
}

TEST_CASE("kafka and none append every change, kafka with Connect's position columns") {
  stage s("primary.key.mode: kafka\n");
  source_message a = message(event(1, 10, R"(,"v":1)"), 7);
  source_message again = message(event(1, 11, R"(,"v":2)"), 8);
  REQUIRE(s.prepare.add(a, 0) == preparer::verdict::decoded);
  REQUIRE(s.prepare.add(again, 0) == preparer::verdict::decoded);
  std::vector<lane_batch> lanes = s.prepare.take();
  const table_rows& t = lanes[0].merged.tables[0];
  CHECK(t.rows.empty());
  REQUIRE(t.keyless.size() == 2);  // one key, two changes: both kept
  const change& first =
      t.keyless[0].source.origin.offset.value() == 7 ? t.keyless[0] : t.keyless[1];
  const auto text = [&](const char* name) {
    for (const column_value& cv : first.after)
      if (cv.name == name) return cv.v.text;
    return std::string("<none>");
  };
  CHECK(text("__connect_topic") == "dbserver1.public.orders");
  CHECK(text("__connect_partition") == "3");
  CHECK(text("__connect_offset") == "7");
  CHECK(text("v") == "1");

  stage none("primary.key.mode: none\n");
  source_message b = message(event(1, 10, R"(,"v":1)"), 7);
  REQUIRE(none.prepare.add(b, 0) == preparer::verdict::decoded);
  lanes = none.prepare.take();
  REQUIRE(lanes[0].merged.tables[0].keyless.size() == 1);
  CHECK(lanes[0].merged.tables[0].keyless[0].after.size() == 2);  // id, v: no position columns
}

TEST_CASE("deletes are skipped under a mode but record_key and by append modes, truncates pass") {
  for (const char* modes : {"primary.key.mode: record_value\nprimary.key.fields: [id]\n",
                            "insert.mode: insert\n", "primary.key.mode: kafka\n"}) {
    INFO(modes);
    stage s(modes);
    // A delete whose image is its key alone (REPLICA IDENTITY DEFAULT): nothing to key a row
    // by nor to append. The peers skip it (delete.enabled requires record_key).
    source_message del = message(event(1, 10, R"(,"v":null)", true), 1);
    CHECK(s.prepare.add(del, 0) == preparer::verdict::filtered);
    source_message up = message(event(2, 11, R"(,"v":1)"), 2);
    CHECK(s.prepare.add(up, 0) == preparer::verdict::decoded);
  }
  stage keyed("");  // record_key: the delete is applied as ever
  source_message del = message(event(1, 10, "", true), 1);
  CHECK(keyed.prepare.add(del, 0) == preparer::verdict::decoded);
}

TEST_CASE("the modes are checked at load against delete.enabled and each other") {
  CHECK(load_error("primary.key.mode: record_value\ndelete.enabled: true\n")
            .find("requires primary.key.mode record_key") != std::string::npos);
  CHECK(load_error("insert.mode: insert\ndelete.enabled: true\n").find("applies no delete") !=
        std::string::npos);
  CHECK(load_error("insert.mode: insert\nkeyless: dead_letter\n")
            .find("would refuse every change of an append mode") != std::string::npos);
  CHECK(load_error("primary.key.mode: none\ntransforms.s.type: ByLogicalTableRouter\n"
                   "transforms.s.topic.regex: a\ntransforms.s.topic.replacement: b\n")
            .find("not supported together") != std::string::npos);
  CHECK(load_error("insert.mode: update\nprimary.key.mode: none\n")
            .find("update finds each change's row by its key") != std::string::npos);
  CHECK(load_error("primary.key.mode: kafka\nprimary.key.fields: [a]\n")
            .find("is not read under primary.key.mode kafka") != std::string::npos);
  CHECK(load_error("insert.mode: insert\n").empty());
  CHECK(load_error("primary.key.mode: sometimes\n").find("record_key") != std::string::npos);
}

TEST_CASE("append modes: any order or duplication of a history appends the same positions") {
  for (const char* modes :
       {"insert.mode: insert\n", "primary.key.mode: kafka\n", "primary.key.mode: none\n"}) {
    std::mt19937_64 rng(31);
    for (int round = 0; round < 100; ++round) {
      std::vector<std::pair<std::string, int64_t>> history;
      const int n = 1 + static_cast<int>(rng() % 8);
      int upserts = 0;
      for (int i = 0; i < n; ++i) {
        const int id = static_cast<int>(rng() % 2);  // few keys: collapsing would show
        const int lsn = 100 + static_cast<int>(rng() % 4);
        const bool deleted = rng() % 4 == 0;  // skipped: an append mode applies no delete
        upserts += deleted ? 0 : 1;
        history.emplace_back(event(id, lsn, R"(,"v":)" + std::to_string(rng() % 5), deleted),
                             i + 1);
      }
      const auto run = [&](const std::vector<std::pair<std::string, int64_t>>& messages) {
        stage s(modes);
        for (const auto& [value, offset] : messages) {
          source_message m = message(value, offset);
          REQUIRE(s.prepare.add(m, 0) != preparer::verdict::dead_lettered);
        }
        return appended(s.prepare.take());
      };
      auto shuffled = history;
      for (int d = static_cast<int>(rng() % 4); d > 0; --d)
        shuffled.push_back(history[rng() % history.size()]);
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      INFO(modes << " round " << round);
      const std::string expected = run(history);
      // Every message is a row of its own: nothing collapses by key.
      CHECK(static_cast<int>(std::count(expected.begin(), expected.end(), '\n')) == upserts);
      CHECK(run(shuffled) == expected);
    }
  }
}

TEST_CASE("record_header: any order or duplication of a history gives the same rows") {
  std::mt19937_64 rng(33);
  for (int round = 0; round < 100; ++round) {
    struct sent {
      std::string value;
      int64_t offset;
      const char* tenant;
    };
    std::vector<sent> history;
    const int n = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) {
      const int lsn = 100 + static_cast<int>(rng() % 4);  // equal CSNs happen
      history.push_back(
          {event(static_cast<int>(rng() % 3), lsn, R"(,"v":)" + std::to_string(rng() % 5)), i + 1,
           rng() % 2 == 0 ? "acme" : "globex"});
    }
    const auto run = [&](const std::vector<sent>& messages) {
      stage s("primary.key.mode: record_header\nprimary.key.fields: [tenant]\n");
      for (const sent& h : messages) {
        source_message m = message(h.value, h.offset);
        m.raw.headers.emplace_back("tenant", h.tenant);
        REQUIRE(s.prepare.add(m, 0) == preparer::verdict::decoded);
      }
      std::vector<std::string> rows;
      for (const lane_batch& l : s.prepare.take()) {
        for (const table_rows& t : l.merged.tables) {
          for (const merged_row& r : t.rows) {
            std::string row = r.key.values[0].text + " u=" + r.upsert_seq.hex();
            for (const char* name : {"id", "v"})
              row += std::string(" ") + name + "=" + column(r, name)->v.text;
            rows.push_back(row);
          }
        }
      }
      std::sort(rows.begin(), rows.end());
      return rows;
    };
    auto shuffled = history;
    for (int d = static_cast<int>(rng() % 4); d > 0; --d)
      shuffled.push_back(history[rng() % history.size()]);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    INFO("round " << round);
    const std::vector<std::string> expected = run(history);
    CHECK(expected.size() <= 2);  // one row per tenant, whatever the ids
    CHECK(run(shuffled) == expected);
  }
}
