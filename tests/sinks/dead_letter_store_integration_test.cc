// dead_letter_store::settle_replayed against a real server (CTest "sinks.test_sink", label
// integration): the letters of a `dead-letters replay` that fail again keep their ids, each
// taking the content of the new letter of its own message, never another's.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include <pqxx/pqxx>

#include "sinks/postgres/state/dead_letter_store.h"
#include "sinks/postgres/state/dead_letter_writer.h"
#include "tests/sinks/pg_test_env.h"

namespace sluice {
namespace {

struct letters_world {
  std::string dsn = testing::test_dsn();
  state_schema schema{testing::unique_name("sluice_letters")};
  pqxx::connection conn{dsn};
  dead_letter_writer writer{schema, "letters"};
  dead_letter_store store{schema, "letters"};

  letters_world() { schema.migrate(conn); }
  ~letters_world() {
    try {
      pqxx::work tx(conn);
      tx.exec("DROP SCHEMA IF EXISTS " + tx.quote_name(schema.name()) + " CASCADE");
      tx.commit();
    } catch (...) {
    }
  }

  std::vector<int64_t> write(const std::vector<dead_letter>& letters) {
    std::vector<const dead_letter*> all;
    for (const dead_letter& d : letters)
      all.push_back(&d);
    std::vector<int64_t> ids;
    pqxx::work tx(conn);
    writer.write(tx, all, &ids);
    tx.commit();
    return ids;
  }
  // id -> target_table and reason of every letter left.
  std::map<int64_t, std::pair<std::string, std::string>> left() {
    pqxx::work tx(conn);
    std::map<int64_t, std::pair<std::string, std::string>> out;
    for (const auto& row :
         tx.exec("SELECT id, target_table, reason FROM " + schema.table("dead_letters")))
      out[row[0].as<int64_t>()] = {row[1].as<std::string>(), row[2].as<std::string>()};
    return out;
  }
};

// A letter not from one message (a merged row PostgreSQL refused): no origin.
dead_letter originless(const std::string& table, const std::string& reason) {
  dead_letter d;
  d.reason = reason;
  d.kind = dead_letter_kind::rejected;
  d.target_schema = "public";
  d.target_table = table;
  return d;
}

TEST_CASE("letters without an origin that fail again pair only within their table") {
  letters_world w;
  // Two letters of two tables, replayed; only the second table's row fails again.
  const std::vector<int64_t> replayed =
      w.write({originless("apples", "old apples"), originless("pears", "old pears")});
  REQUIRE(replayed.size() == 2);
  const std::vector<int64_t> written = w.write({originless("pears", "new pears")});
  pqxx::work tx(w.conn);
  CHECK(w.store.settle_replayed(tx, replayed, written) == 1);  // the apples letter applied
  tx.commit();
  const auto left = w.left();
  // Paired by position alone, the apples letter (the first id) would have taken the pears
  // letter's content and the pears letter would have gone as applied.
  REQUIRE(left.size() == 1);
  REQUIRE(left.count(replayed[1]) == 1);
  CHECK(left.at(replayed[1]).first == "pears");
  CHECK(left.at(replayed[1]).second == "new pears");
}

TEST_CASE("letters of one message pair by id order and keep their ids") {
  letters_world w;
  dead_letter a = originless("apples", "old 1");
  a.origin = {"orders", partition_id{0}, kafka_offset{7}, timestamp_ns{0}};
  dead_letter b = a;
  b.reason = "old 2";
  const std::vector<int64_t> replayed = w.write({a, b});
  a.reason = "new 1";
  const std::vector<int64_t> written = w.write({a});
  pqxx::work tx(w.conn);
  CHECK(w.store.settle_replayed(tx, replayed, written) == 1);
  tx.commit();
  const auto left = w.left();
  REQUIRE(left.size() == 1);
  REQUIRE(left.count(replayed[0]) == 1);
  CHECK(left.at(replayed[0]).second == "new 1");
}

}  // namespace
}  // namespace sluice
