#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sinks/mariadb/session/key_locks.h"

namespace sluice {
namespace {

const target_table orders{"shop", "orders"};
const target_table items{"shop", "items"};

TEST_CASE("mariadb key locks: a key's bucket is fixed, per table, within the bucket table") {
  // FNV-1a 64 over "shop\0orders\0" + key, modulo 4096: a change of hash would let two versions
  // of sluice lock different rows for one key.
  const int b = mdb::key_bucket(orders, "42");
  CHECK(b == mdb::key_bucket(orders, "42"));
  CHECK(b >= 0);
  CHECK(b < mdb::state_schema::lock_bucket_count);
  CHECK(b == 2548);
  CHECK(mdb::key_bucket(items, "42") != b);
}

TEST_CASE("mariadb key locks: tables then buckets, sorted, deduplicated, exclusive wins") {
  mdb::key_lock_set locks(mdb::state_schema("sluice"));
  locks.add_table(orders, false);
  locks.add_table(items, false);
  locks.add_table(orders, true);
  locks.add_table(items, false);
  for (const char* k : {"3", "1", "2", "1", "3"})
    locks.add_key(orders, k);
  locks.finish();
  REQUIRE(locks.tables().size() == 2);
  CHECK(locks.tables()[0] == items);
  CHECK(locks.tables()[1] == orders);
  CHECK(locks.exclusive() == std::vector<bool>{false, true});
  REQUIRE(locks.keys().size() == 3);
  CHECK(locks.keys()[0] < locks.keys()[1]);
  CHECK(locks.keys()[1] < locks.keys()[2]);
}

TEST_CASE("mariadb key locks: more buckets than max_keys lock the keys' tables exclusively") {
  mdb::key_lock_set locks(mdb::state_schema("sluice"), 2);
  locks.add_table(orders, false);
  for (const char* k : {"1", "2", "3", "4"})
    locks.add_key(orders, k);
  locks.finish();
  CHECK(locks.keys().empty());
  REQUIRE(locks.tables().size() == 1);
  CHECK(locks.exclusive()[0]);
}

TEST_CASE("mariadb key locks: the statements lock one table row, buckets in ascending order") {
  mdb::key_lock_set locks(mdb::state_schema("st"));
  CHECK(locks.table_lock_sql(false) ==
        "SELECT 1 FROM `st`.`table_locks` WHERE target_schema = ? AND target_table = ? "
        "LOCK IN SHARE MODE");
  CHECK(locks.table_lock_sql(true).ends_with("FOR UPDATE"));
  const std::vector<int> buckets{4, 17, 4095};
  CHECK(locks.bucket_lock_sql(buckets) ==
        "SELECT bucket FROM `st`.`lock_buckets` WHERE bucket IN (4,17,4095) ORDER BY bucket FOR "
        "UPDATE");
}

}  // namespace
}  // namespace sluice
