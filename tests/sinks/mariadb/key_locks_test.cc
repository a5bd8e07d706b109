#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sinks/mariadb/session/key_locks.h"

namespace sluice {
namespace {

const target_table orders{"shop", "orders"};
const target_table items{"shop", "items"};

TEST_CASE("mariadb key locks: a key's hash is fixed and per table") {
  // FNV-1a 64 over "shop\0orders\0" + key: a change of hash would let two versions of sluice
  // lock different rows for one key (modulo 4096 it is version 1's bucket, 2548).
  const uint64_t h = mdb::key_hash(orders, "42");
  CHECK(h == mdb::key_hash(orders, "42"));
  CHECK(h == 11857246777056152052ull);
  CHECK(h % 4096 == 2548);
  CHECK(mdb::key_hash(items, "42") != h);
}

TEST_CASE("mariadb key locks: tables then keys, sorted, deduplicated, exclusive wins") {
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

TEST_CASE("mariadb key locks: more keys than max_keys lock the keys' tables exclusively") {
  mdb::key_lock_set locks(mdb::state_schema("sluice"), 2);
  locks.add_table(orders, false);
  for (const char* k : {"1", "2", "3", "4"})
    locks.add_key(orders, k);
  locks.finish();
  CHECK(locks.keys().empty());
  REQUIRE(locks.tables().size() == 1);
  CHECK(locks.exclusive()[0]);
}

TEST_CASE("mariadb key locks: the statements lock one table row, a key's row by inserting it") {
  mdb::key_lock_set locks(mdb::state_schema("st"));
  CHECK(locks.table_lock_sql(false) ==
        "SELECT 1 FROM `st`.`table_locks` WHERE target_schema = ? AND target_table = ? "
        "LOCK IN SHARE MODE");
  CHECK(locks.table_lock_sql(true).ends_with("FOR UPDATE"));
  const std::vector<uint64_t> keys{1, 0x0123456789abcdefull, 0xffffffffffffffffull};
  CHECK(locks.key_lock_sql(keys) ==
        "INSERT INTO `st`.`key_locks` (key_hash) VALUES (0x0000000000000001),(0x0123456789abcdef),"
        "(0xffffffffffffffff) ON DUPLICATE KEY UPDATE key_hash = key_hash");
}

TEST_CASE("mariadb key locks: a default batch of thousands of keys locks keys, not tables") {
  mdb::key_lock_set locks(mdb::state_schema("sluice"));
  locks.add_table(orders, false);
  for (int i = 0; i < 20000; ++i)
    locks.add_key(orders, std::to_string(i));
  locks.finish();
  CHECK(locks.keys().size() == 20000);
  REQUIRE(locks.tables().size() == 1);
  CHECK_FALSE(locks.exclusive()[0]);
}

}  // namespace
}  // namespace sluice
