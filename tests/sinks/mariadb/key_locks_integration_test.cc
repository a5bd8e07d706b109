#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "sinks/mariadb/session/key_locks.h"
#include "tests/sinks/mariadb/mdb_test_env.h"

namespace sluice {
namespace {

// A connection that waits one second for a row lock, then fails with 1205.
mdb::connect_settings impatient() {
  mdb::connect_settings s = testing::mariadb_settings();
  s.init.push_back("SET SESSION innodb_lock_wait_timeout = 1");
  s.init.push_back("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
  return s;
}

// Locks `locks` in a new transaction on `c`: the error number (0: locked).
unsigned lock(mdb::connection& c, mdb::key_lock_set& locks) {
  locks.prepare(c);
  c.exec("BEGIN");
  try {
    locks.acquire(c);
    return 0;
  } catch (const mdb::mdb_error& e) {
    c.exec("ROLLBACK");
    return e.code();
  }
}

struct fixture {
  mdb::state_schema schema{testing::unique_name("sluice_locks")};
  target_table orders{"shop", "orders"};
  fixture() {
    mdb::connection c(testing::mariadb_settings());
    schema.migrate(c);
  }
  // A key of `orders` in a bucket other than `key`'s.
  std::string other_key(const std::string& key) const {
    for (int i = 0;; ++i) {
      const std::string k = "other" + std::to_string(i);
      if (mdb::key_bucket(orders, k) != mdb::key_bucket(orders, key)) return k;
    }
  }
  mdb::key_lock_set writer(const std::string& key) const {
    mdb::key_lock_set s(schema);
    s.add_table(orders, false);
    s.add_key(orders, key);
    return s;
  }
  mdb::key_lock_set truncate() const {
    mdb::key_lock_set s(schema);
    s.add_table(orders, true);
    return s;
  }
};

TEST_CASE("mariadb key locks: a key's writer waits for the transaction holding its bucket") {
  fixture f;
  mdb::connection a(impatient()), b(impatient()), c(impatient());
  mdb::key_lock_set first = f.writer("k1"), same = f.writer("k1"),
                    other = f.writer(f.other_key("k1"));
  REQUIRE(lock(a, first) == 0);
  CHECK(lock(b, same) == 1205);  // same bucket: waits, times out
  CHECK(lock(c, other) == 0);    // another bucket, the table shared: goes on at once
  c.exec("COMMIT");
  a.exec("COMMIT");  // the lock ends with the transaction
  CHECK(lock(b, same) == 0);
  b.exec("COMMIT");
}

TEST_CASE("mariadb key locks: a truncate waits for the table's writers and they for it") {
  fixture f;
  mdb::connection a(impatient()), b(impatient()), c(impatient());
  mdb::key_lock_set writer = f.writer("k1"), truncate = f.truncate(),
                    second = f.writer(f.other_key("k1"));
  REQUIRE(lock(a, writer) == 0);
  CHECK(lock(b, truncate) == 1205);  // a writer holds the table in share mode
  CHECK(lock(c, second) == 0);       // writers share it
  c.exec("COMMIT");
  a.exec("COMMIT");
  REQUIRE(lock(b, truncate) == 0);
  CHECK(lock(c, second) == 1205);  // the truncate holds it exclusively
  b.exec("COMMIT");
  CHECK(lock(c, second) == 0);
  c.exec("COMMIT");
}

TEST_CASE("mariadb key locks: a table without its row is refused, not left unlocked") {
  fixture f;
  mdb::connection a(impatient());
  mdb::key_lock_set locks = f.writer("k1");
  a.exec("BEGIN");
  CHECK_THROWS_AS(locks.acquire(a), std::logic_error);
  a.exec("ROLLBACK");
  // Over a thousand buckets: several statements, the last one's taken too.
  mdb::key_lock_set many(f.schema);
  for (int i = 0; i < 3000; ++i)
    many.add_key(f.orders, std::to_string(i));
  REQUIRE(lock(a, many) == 0);
  REQUIRE(many.keys().size() > mdb::key_lock_set::bucket_chunk);
  std::string last;
  for (int i = 0; last.empty(); ++i)
    if (mdb::key_bucket(f.orders, std::to_string(i)) == many.keys().back())
      last = std::to_string(i);
  mdb::connection b(impatient());
  mdb::key_lock_set one(f.schema);
  one.add_key(f.orders, last);
  CHECK(lock(b, one) == 1205);
  a.exec("COMMIT");
}

}  // namespace
}  // namespace sluice
