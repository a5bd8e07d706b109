#include "sinks/postgres/session/key_locks.h"

#include <doctest/doctest.h>

#include <algorithm>

namespace sluice {
namespace {

TEST_CASE("lock keys are stable, and differ by table and by key") {
  const target_table orders{"shop", "orders"}, items{"shop", "items"};
  CHECK(table_lock_key(orders) == table_lock_key(target_table{"shop", "orders"}));
  CHECK(table_lock_key(orders) != table_lock_key(items));
  // "shop"+"orders" must not hash like "shopo"+"rders".
  CHECK(table_lock_key(orders) != table_lock_key(target_table{"shopo", "rders"}));
  CHECK(key_lock_key(orders, "k1") == key_lock_key(target_table{"shop", "orders"}, "k1"));
  CHECK(key_lock_key(orders, "k1") != key_lock_key(orders, "k2"));
  int differing = 0;
  for (int i = 0; i < 100; ++i) {
    const std::string k = "key" + std::to_string(i);
    if (key_lock_key(orders, k) != key_lock_key(items, k)) ++differing;
  }
  CHECK(differing > 90);
}

TEST_CASE(
    "a batch's locks are sorted and deduplicated, and a truncate locks its table exclusively") {
  key_lock_set locks(1000);
  const target_table a{"s", "a"}, b{"s", "b"};
  locks.add_table(a, false);
  locks.add_table(b, false);
  locks.add_table(a, true);
  locks.add_table(b, false);
  for (int i = 0; i < 500; ++i)
    locks.add_key(a, "k" + std::to_string(i % 100));
  locks.finish();
  REQUIRE(locks.tables().size() == 2);
  CHECK(std::is_sorted(locks.tables().begin(), locks.tables().end()));
  for (size_t i = 0; i < 2; ++i) {
    CHECK(locks.exclusive()[i] == (locks.tables()[i] == table_lock_key(a)));
  }
  CHECK(locks.keys().size() == 100);  // one per distinct key
  CHECK(std::binary_search(locks.keys().begin(), locks.keys().end(), key_lock_key(a, "k7")));
  CHECK(std::is_sorted(locks.keys().begin(), locks.keys().end()));
  CHECK(std::adjacent_find(locks.keys().begin(), locks.keys().end()) == locks.keys().end());
}

TEST_CASE("a batch with more keys than the budget locks their tables exclusively instead") {
  const target_table a{"s", "a"}, b{"s", "b"}, c{"s", "c"};
  key_lock_set locks(10);
  locks.add_table(a, false);
  locks.add_table(b, false);
  locks.add_table(c, false);
  for (int i = 0; i < 8; ++i) {
    locks.add_key(a, "k" + std::to_string(i));
    locks.add_key(b, "k" + std::to_string(i));
  }
  locks.finish();
  // 16 keys > 10: no key lock; a and b (which had keys) exclusive, c still shared.
  CHECK(locks.keys().empty());
  REQUIRE(locks.tables().size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(locks.exclusive()[i] == (locks.tables()[i] != table_lock_key(c)));
  }
  // Within the budget: key locks, tables shared.
  locks.clear();
  locks.add_table(a, false);
  for (int i = 0; i < 10; ++i)
    locks.add_key(a, "k" + std::to_string(i));
  locks.finish();
  CHECK(locks.keys().size() == 10);
  REQUIRE(locks.exclusive().size() == 1);
  CHECK_FALSE(locks.exclusive()[0]);
}

}  // namespace
}  // namespace sluice
