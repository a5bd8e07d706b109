#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "sinks/mariadb/session/key_locks.h"
#include "sinks/mariadb/session/mdb_session.h"
#include "sinks/mariadb/state_janitor.h"
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
  // Another key of `orders`.
  std::string other_key(const std::string& key) const { return key + "-other"; }
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

TEST_CASE("mariadb key locks: a key's writer waits for the transaction holding its row") {
  fixture f;
  mdb::connection a(impatient()), b(impatient()), c(impatient());
  mdb::key_lock_set first = f.writer("k1"), same = f.writer("k1"),
                    other = f.writer(f.other_key("k1"));
  REQUIRE(lock(a, first) == 0);
  CHECK(lock(b, same) == 1205);  // the same key: waits, times out
  CHECK(lock(c, other) == 0);    // another key, the table shared: goes on at once
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
}

TEST_CASE("mariadb key locks: a key's first writer makes its row, later ones find it") {
  fixture f;
  mdb::connection a(impatient()), b(impatient());
  const auto rows = [&] {
    return a.query("SELECT count(*) FROM " + f.schema.table("key_locks")).at(0, 0);
  };
  // A key whose row is new is locked by the insert, until COMMIT or ROLLBACK.
  mdb::key_lock_set first = f.writer("new"), second = f.writer("new");
  REQUIRE(lock(a, first) == 0);
  CHECK(lock(b, second) == 1205);
  a.exec("ROLLBACK");  // the row goes with the insert: the next writer makes it again
  REQUIRE(lock(b, second) == 0);
  CHECK(lock(a, first) == 1205);
  b.exec("COMMIT");
  CHECK(rows() == "1");
  REQUIRE(lock(a, first) == 0);
  a.exec("COMMIT");
  CHECK(rows() == "1");
}

TEST_CASE("mariadb key locks: more keys than one statement takes are all locked") {
  fixture f;
  mdb::connection a(impatient()), b(impatient());
  mdb::key_lock_set many(f.schema);
  many.add_table(f.orders, false);
  const int n = static_cast<int>(mdb::key_lock_set::key_chunk) + 1000;
  for (int i = 0; i < n; ++i)
    many.add_key(f.orders, std::to_string(i));
  REQUIRE(lock(a, many) == 0);
  REQUIRE(many.keys().size() == static_cast<size_t>(n));
  // The key hashed last (in the second statement) and the first are both held.
  std::string first, last;
  for (int i = 0; first.empty() || last.empty(); ++i) {
    const uint64_t h = mdb::key_hash(f.orders, std::to_string(i));
    if (h == many.keys().front()) first = std::to_string(i);
    if (h == many.keys().back()) last = std::to_string(i);
  }
  mdb::key_lock_set one = f.writer(last), other = f.writer(first);
  CHECK(lock(b, one) == 1205);
  CHECK(lock(b, other) == 1205);
  a.exec("COMMIT");
  CHECK(lock(b, one) == 0);
  b.exec("COMMIT");
}

TEST_CASE("mariadb key locks: the janitor empties key_locks once past its limit") {
  fixture f;
  mdb::connection a(impatient());
  mdb::key_lock_set many(f.schema);
  many.add_table(f.orders, false);
  for (int i = 0; i < 2500; ++i)
    many.add_key(f.orders, std::to_string(i));
  REQUIRE(lock(a, many) == 0);
  a.exec("COMMIT");
  a.exec("ANALYZE TABLE " + f.schema.table("key_locks"));  // the estimate the trim reads
  session_options o;
  o.dsn = testing::mariadb_dsn();
  o.state_schema = f.schema.name();
  mdb::mdb_session s(o, retry_policy{}, "trim");
  mdb::state_janitor janitor(s);
  CHECK(janitor.trim_key_locks({}, 1'000'000) == 0u);  // below the limit: left alone
  CHECK(janitor.trim_key_locks({}, 100) == 2500u);
  CHECK(a.query("SELECT count(*) FROM " + f.schema.table("key_locks")).at(0, 0) == "0");
  // A key whose row went is locked as before: made again by its next writer.
  mdb::key_lock_set again = f.writer("7"), same = f.writer("7");
  REQUIRE(lock(a, again) == 0);
  mdb::connection b(impatient());
  CHECK(lock(b, same) == 1205);
  a.exec("COMMIT");
}

}  // namespace
}  // namespace sluice
