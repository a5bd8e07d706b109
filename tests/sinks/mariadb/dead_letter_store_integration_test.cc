#include "sinks/mariadb/state/dead_letter_store.h"

#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "sinks/mariadb/state/dead_letter_writer.h"
#include "tests/sinks/mariadb/state_test_db.h"

namespace sluice {
namespace {

using testing::state_test_db;

dead_letter letter(std::string reason, dead_letter_kind kind, std::string table, std::string topic,
                   int64_t offset) {
  dead_letter d;
  d.reason = std::move(reason);
  d.kind = kind;
  if (!table.empty()) {
    d.target_schema = "s";
    d.target_table = std::move(table);
  }
  d.origin.topic = std::move(topic);
  d.origin.partition = partition_id(1);
  d.origin.offset = kafka_offset(offset);
  d.origin.timestamp = timestamp_ns(int64_t{1'700'000'000'000} * 1'000'000);
  d.key = "k";
  d.value = std::string("v\0", 2);
  return d;
}

// Five letters of connector c (and one of d): ids returned in order.
std::vector<int64_t> fill(state_test_db& db) {
  const mdb::dead_letter_writer writer(db.schema, "c"), other(db.schema, "d");
  dead_letter a = letter("Bad JSON at 3", dead_letter_kind::decode, "", "orders", 10);
  dead_letter b = letter("value too long", dead_letter_kind::rejected, "orders", "orders", 11);
  dead_letter c = letter("folds onto", dead_letter_kind::routing, "items", "items", 12);
  dead_letter d = letter("bad json again", dead_letter_kind::decode, "", "items", 13);
  dead_letter e = letter("value too long", dead_letter_kind::rejected, "orders", "orders", 14);
  dead_letter theirs = letter("bad json", dead_letter_kind::decode, "", "orders", 1);
  std::vector<int64_t> ids;
  db.in_tx([&](mdb::connection& conn) {
    writer.write(conn, {&a, &b, &c, &d, &e}, &ids);
    other.write(conn, {&theirs});
  });
  return ids;
}

TEST_CASE("mariadb dead-letter store: the filter narrows by each member, values as data") {
  state_test_db db("mdb_dls_filter");
  const std::vector<int64_t> ids = fill(db);
  const mdb::dead_letter_store store(db.schema, "c");
  dead_letter_filter f;
  CHECK(store.count(db.conn, f) == 5);  // not connector d's
  f.kind = "decode";
  CHECK(store.count(db.conn, f) == 2);
  f.reason = "JSON AGAIN";  // any case
  CHECK(store.count(db.conn, f) == 1);
  f = {};
  f.table = "s.orders";
  CHECK(store.count(db.conn, f) == 2);
  f.table = "orders";  // the bare table name
  CHECK(store.count(db.conn, f) == 2);
  f.table = "x' OR '1'='1";
  CHECK(store.count(db.conn, f) == 0);
  f = {};
  f.topic = "items";
  CHECK(store.count(db.conn, f) == 2);
  f = {};
  f.ids = {ids[1], ids[3], 999'999};
  CHECK(store.count(db.conn, f) == 2);
  f = {};
  f.up_to_id = ids[2];
  CHECK(store.last_id(db.conn, f) == ids[2]);
  f.since = "2000-01-01T00:00:00.000000Z";
  f.until = "2999-01-01T00:00:00.000000Z";
  CHECK(store.count(db.conn, f) == 3);
  f.since = "2999-01-01T00:00:00.000000Z";
  CHECK(store.count(db.conn, f) == 0);
  CHECK(store.last_id(db.conn, f) == 0);

  dead_letter_filter one;
  one.ids = {ids[1]};
  const auto shown = store.select(db.conn, one, 0, 1);
  REQUIRE(shown.size() == 1);
  const stored_dead_letter& s = shown[0];
  CHECK(s.id == ids[1]);
  CHECK(s.kind == "rejected");
  CHECK(s.target == "s.orders");
  CHECK(s.reason == "value too long");
  CHECK(s.topic == "orders");
  CHECK(s.partition == 1);
  CHECK(s.offset == 11);
  CHECK(s.timestamp_ms == 1'700'000'000'000);
  CHECK(s.key == "k");
  CHECK(s.value == std::string("v\0", 2));
  CHECK(s.headers_json == "[]");
  CHECK(s.created_at.size() == 24);  // 2026-12-03T10:00:00.000Z
  CHECK(s.created_at.back() == 'Z');
}

TEST_CASE("mariadb dead-letter store: pages oldest first after an id, purge counts on a dry run") {
  state_test_db db("mdb_dls_page");
  const std::vector<int64_t> ids = fill(db);
  const mdb::dead_letter_store store(db.schema, "c");
  const dead_letter_filter all;
  const auto first = store.select(db.conn, all, 0, 2);
  REQUIRE(first.size() == 2);
  CHECK(first[0].id == ids[0]);
  CHECK(first[1].id == ids[1]);
  const auto next = store.select(db.conn, all, first.back().id, 2);
  REQUIRE(next.size() == 2);
  CHECK(next[0].id == ids[2]);
  CHECK(store.select(db.conn, all, ids[4], 2).empty());

  dead_letter_filter rejected;
  rejected.kind = "rejected";
  // A dry run counts what a purge would delete.
  CHECK(store.count(db.conn, rejected) == 2);
  CHECK(store.count(db.conn, all) == 5);
  CHECK(db.in_tx([&](mdb::connection& c) { return store.purge(c, rejected); }) == 2);
  CHECK(store.count(db.conn, all) == 3);
  CHECK(db.in_tx([&](mdb::connection& c) { return store.remove(c, {ids[0], ids[1]}); }) == 1);
  CHECK(store.count(db.conn, all) == 2);
  // Connector d's letter is untouched.
  CHECK(mdb::dead_letter_store(db.schema, "d").count(db.conn, all) == 1);
}

TEST_CASE("mariadb dead-letter store: two sessions contend for the replay turn") {
  state_test_db db("mdb_dls_turn");
  const mdb::dead_letter_store store(db.schema, "c");
  mdb::connection first(state_test_db::settings()), second(state_test_db::settings());
  store.take_replay_turn(first, [] { FAIL("nobody held the turn"); });
  // The turn survives a COMMIT on its session: it is the session's, not the transaction's.
  db.in_tx(first, [](mdb::connection&) {});
  CHECK_FALSE(store.try_replay_turn(second));
  // Another connector's replay is not held up.
  CHECK(mdb::dead_letter_store(db.schema, "other").try_replay_turn(second));

  std::atomic<int> waited{0};
  std::atomic<bool> mine{false};
  std::thread t([&] {
    store.take_replay_turn(second, [&] { ++waited; });
    mine = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  CHECK_FALSE(mine.load());
  store.release_replay_turn(first);
  t.join();
  CHECK(mine.load());
  CHECK(waited.load() == 1);  // told once, however long it waited
  CHECK_FALSE(store.try_replay_turn(first));
}

TEST_CASE("mariadb dead-letter store: a replay lock name longer than MariaDB takes is hashed") {
  const mdb::state_schema schema(std::string(60, 's'));
  const mdb::dead_letter_store store(schema, std::string(100, 'c'));
  CHECK(store.replay_lock_name().size() <= 64);
  CHECK(store.replay_lock_name() !=
        mdb::dead_letter_store(schema, std::string(99, 'c')).replay_lock_name());
  mdb::connection c(state_test_db::settings());
  CHECK(store.try_replay_turn(c));
}

}  // namespace
}  // namespace sluice
