#include "sinks/postgres/key_locks.h"

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
  const int32_t b = key_lock_bucket(orders, "k1", 1024);
  CHECK(b >= 0);
  CHECK(b < 1024);
  CHECK(b == key_lock_bucket(orders, "k1", 1024));
  int differing = 0;
  for (int i = 0; i < 100; ++i) {
    const std::string k = "key" + std::to_string(i);
    if (key_lock_bucket(orders, k, 1024) != key_lock_bucket(items, k, 1024)) ++differing;
  }
  CHECK(differing > 90);
}

TEST_CASE(
    "a batch's locks are sorted and deduplicated, and a truncate locks its table exclusively") {
  key_lock_set locks(64);
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
  CHECK(locks.buckets().size() <= 64);
  CHECK(std::is_sorted(locks.buckets().begin(), locks.buckets().end()));
  CHECK(std::adjacent_find(locks.buckets().begin(), locks.buckets().end()) ==
        locks.buckets().end());
}

}  // namespace
}  // namespace sluice
