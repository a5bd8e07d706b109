#include "sinks/mariadb/state/tombstone_expiry.h"

#include <doctest/doctest.h>

#include "tests/sinks/mariadb/state_test_db.h"

namespace sluice {
namespace {

using testing::state_test_db;

// A tombstone of s.<table> deleted `days_ago` days ago.
void tombstone(state_test_db& db, const std::string& table, const std::string& key, int days_ago) {
  db.conn.exec("INSERT INTO " + db.schema.table("tombstones") +
                   " (target_schema, target_table, key_hash, `key`, csn, deleted_at) VALUES "
                   "('s', ?, UNHEX(SHA2(?, 256)), ?, 'x', UTC_TIMESTAMP(6) - INTERVAL "
                   "CAST(? AS SIGNED) DAY)",
               std::vector{mdb::param::text(table), mdb::param::text(key), mdb::param::bytes(key),
                           mdb::param::text(std::to_string(days_ago))});
}

// A dead letter of s.<table> (none: naming no table) written `days_ago` days ago.
void letter(state_test_db& db, const std::optional<std::string>& table, int days_ago) {
  db.conn.exec("INSERT INTO " + db.schema.table("dead_letters") +
                   " (connector, reason, target_schema, target_table, created_at) VALUES "
                   "('c', 'r', IF(? IS NULL, NULL, 's'), ?, UTC_TIMESTAMP(6) - INTERVAL "
                   "CAST(? AS SIGNED) DAY)",
               std::vector{table ? mdb::param::text(*table) : mdb::param::null(),
                           table ? mdb::param::text(*table) : mdb::param::null(),
                           mdb::param::text(std::to_string(days_ago))});
}

std::string keys_left(state_test_db& db) {
  std::string out;
  for (const auto& row :
       db.conn.query("SELECT `key` FROM " + db.schema.table("tombstones") + " ORDER BY 1").rows)
    out += *row.at(0) + " ";
  return out;
}

TEST_CASE("mariadb tombstone expiry: old tombstones go unless a letter may still need them") {
  state_test_db db("mdb_expiry");
  const mdb::tombstone_expiry expiry(db.schema);
  const auto week = std::chrono::seconds(7 * 24 * 3600);
  tombstone(db, "orders", "fresh", 1);  // within the retention: stays
  tombstone(db, "orders", "old", 30);   // a letter of orders 25 days ago: within 7 days of it
  tombstone(db, "items", "old_i", 30);  // letters of items none: goes
  tombstone(db, "items", "older_i", 60);
  letter(db, std::string("orders"), 25);
  auto done = db.in_tx([&](mdb::connection& c) { return expiry.expire(c, week); });
  CHECK(done.expired == 2);
  CHECK(done.kept == 1);
  CHECK(keys_left(db) == "fresh old ");

  // A letter naming no table (a decode letter) holds every table's tombstones of its time.
  tombstone(db, "items", "old_i", 30);
  letter(db, std::nullopt, 26);
  done = db.in_tx([&](mdb::connection& c) { return expiry.expire(c, week); });
  CHECK(done.expired == 0);
  CHECK(done.kept == 2);
  // Letters written long after a tombstone (more than the retention) do not hold it.
  db.conn.exec("DELETE FROM " + db.schema.table("dead_letters"));
  letter(db, std::string("orders"), 2);
  done = db.in_tx([&](mdb::connection& c) { return expiry.expire(c, week); });
  CHECK(done.expired == 2);
  CHECK(done.kept == 0);
  CHECK(keys_left(db) == "fresh ");
}

}  // namespace
}  // namespace sluice
