#include "sinks/mariadb/state/offset_store.h"

#include <doctest/doctest.h>

#include "tests/sinks/mariadb/state_test_db.h"

namespace sluice {
namespace {

using testing::state_test_db;

partition_progress progress(int32_t partition, int64_t expected, int64_t next, int64_t epoch) {
  return {"t", partition_id(partition), owner_epoch(epoch), kafka_offset(expected),
          kafka_offset(next)};
}

TEST_CASE("mariadb offsets: a claim bumps the epoch and says where to resume") {
  state_test_db db("mdb_offsets_claim");
  const mdb::offset_store store(db.schema, "c");
  auto first = db.in_tx([&](mdb::connection& c) {
    return store.claim(c, "t", {partition_id(1), partition_id(0), partition_id(1)});
  });
  REQUIRE(first.size() == 2);
  CHECK(first[0].partition == partition_id(0));
  CHECK(first[0].epoch == owner_epoch(1));
  CHECK_FALSE(first[0].next);
  db.in_tx([&](mdb::connection& c) {
    CHECK(store.advance(c, {progress(0, -1, 7, 1), progress(1, -1, 3, 1)}).empty());
  });
  auto second = db.in_tx([&](mdb::connection& c) {
    return store.claim(c, "t", {partition_id(0), partition_id(1), partition_id(2)});
  });
  REQUIRE(second.size() == 3);
  CHECK(second[0].epoch == owner_epoch(2));
  CHECK(second[0].next == kafka_offset(7));
  CHECK(second[1].next == kafka_offset(3));
  CHECK(second[2].epoch == owner_epoch(1));  // new: created at epoch 1
  CHECK_FALSE(second[2].next);
  // Another connector's rows are its own.
  const mdb::offset_store other(db.schema, "d");
  auto theirs =
      db.in_tx([&](mdb::connection& c) { return other.claim(c, "t", {partition_id(0)}); });
  CHECK(theirs.at(0).epoch == owner_epoch(1));
}

TEST_CASE("mariadb offsets: a zombie with the old epoch fails its compare-and-set, nothing moves") {
  state_test_db db("mdb_offsets_zombie");
  const mdb::offset_store store(db.schema, "c");
  db.in_tx([&](mdb::connection& c) { store.claim(c, "t", {partition_id(0), partition_id(1)}); });
  db.in_tx([&](mdb::connection& c) {
    CHECK(store.advance(c, {progress(0, -1, 10, 1), progress(1, -1, 20, 1)}).empty());
  });
  // A new owner claims partition 1: the old one is now a zombie there.
  db.in_tx([&](mdb::connection& c) { store.claim(c, "t", {partition_id(1)}); });
  db.conn.exec("START TRANSACTION");
  const auto stale = store.advance(db.conn, {progress(0, 10, 15, 1), progress(1, 20, 25, 1)});
  db.conn.exec("ROLLBACK");  // what the applier does with a fenced batch
  CHECK(stale == std::vector<std::string>{"t[1]"});
  const auto rows = db.in_tx([&](mdb::connection& c) { return store.read(c); });
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].next == kafka_offset(10));
  CHECK(rows[1].next == kafka_offset(20));
  CHECK(rows[1].epoch == owner_epoch(2));
  // An expected offset that is not the stored one is refused the same way.
  db.conn.exec("START TRANSACTION");
  CHECK(store.advance(db.conn, {progress(0, 11, 15, 1)}) == std::vector<std::string>{"t[0]"});
  db.conn.exec("ROLLBACK");
}

TEST_CASE("mariadb offsets: a compare-and-set that leaves the offset where it is is not fenced") {
  state_test_db db("mdb_offsets_same");
  const mdb::offset_store store(db.schema, "c");
  db.in_tx([&](mdb::connection& c) { store.claim(c, "t", {partition_id(0), partition_id(1)}); });
  db.in_tx([&](mdb::connection& c) {
    CHECK(store.advance(c, {progress(0, -1, 10, 1), progress(1, -1, 20, 1)}).empty());
  });
  // Nothing consumed on partition 1 this batch: next == expected. Without CLIENT_FOUND_ROWS
  // the server would report 0 changed rows there and the batch would look fenced.
  db.in_tx([&](mdb::connection& c) {
    CHECK(store.advance(c, {progress(0, 10, 12, 1), progress(1, 20, 20, 1)}).empty());
  });
  const auto rows = db.in_tx([&](mdb::connection& c) { return store.read(c); });
  CHECK(rows.at(0).next == kafka_offset(12));
  CHECK(rows.at(1).next == kafka_offset(20));
}

TEST_CASE("mariadb offsets: reset and clear move the offsets and fence the owner") {
  state_test_db db("mdb_offsets_admin");
  const mdb::offset_store store(db.schema, "c");
  db.in_tx([&](mdb::connection& c) { store.claim(c, "t", {partition_id(0), partition_id(1)}); });
  db.in_tx([&](mdb::connection& c) {
    CHECK(store.advance(c, {progress(0, -1, 10, 1), progress(1, -1, 20, 1)}).empty());
  });
  const auto reset = db.in_tx([&](mdb::connection& c) {
    return store.reset(
        c, {{"t", partition_id(1), kafka_offset(5)}, {"u", partition_id(0), kafka_offset(3)}});
  });
  REQUIRE(reset.size() == 2);
  CHECK(reset[0].topic == "t");
  CHECK(reset[0].next == kafka_offset(5));
  CHECK(reset[0].epoch == owner_epoch(2));
  CHECK(reset[1].topic == "u");  // never claimed: created
  CHECK(reset[1].next == kafka_offset(3));
  CHECK(reset[1].epoch == owner_epoch(1));
  // The owner that claimed before the reset cannot write over it.
  db.conn.exec("START TRANSACTION");
  CHECK(store.advance(db.conn, {progress(1, 5, 30, 1)}) == std::vector<std::string>{"t[1]"});
  db.conn.exec("ROLLBACK");

  const auto one = db.in_tx([&](mdb::connection& c) {
    return store.clear(c, {{"t", partition_id(0)}});
  });
  REQUIRE(one.size() == 1);
  CHECK_FALSE(one[0].next);
  CHECK(one[0].epoch == owner_epoch(2));
  const auto all = db.in_tx([&](mdb::connection& c) { return store.clear(c, {}); });
  REQUIRE(all.size() == 3);
  for (const stored_offset& o : all)
    CHECK_FALSE(o.next);
  CHECK(all[0].epoch == owner_epoch(3));
  CHECK(all[1].epoch == owner_epoch(3));
  CHECK(all[2].epoch == owner_epoch(2));
}

TEST_CASE("mariadb offsets: an in-doubt commit is told by reading the offsets back") {
  state_test_db db("mdb_offsets_doubt");
  const mdb::offset_store store(db.schema, "c");
  db.in_tx([&](mdb::connection& c) { store.claim(c, "t", {partition_id(0)}); });
  const std::vector<partition_progress> batch = {progress(0, -1, 10, 1)};
  auto stored = db.in_tx([&](mdb::connection& c) { return store.read(c, batch); });
  CHECK(resolve_commit(batch, stored) == commit_outcome::not_committed);
  db.in_tx([&](mdb::connection& c) { CHECK(store.advance(c, batch).empty()); });
  stored = db.in_tx([&](mdb::connection& c) { return store.read(c, batch); });
  CHECK(resolve_commit(batch, stored) == commit_outcome::committed);
}

}  // namespace
}  // namespace sluice
