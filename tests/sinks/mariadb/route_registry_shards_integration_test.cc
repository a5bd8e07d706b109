// The route registry on MariaDB and the shards of a logical table (ByLogicalTableRouter,
// table_plan::shard_column): the contract of postgres/state/route_registry.h, against a real
// server.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sinks/mariadb/state/route_registry.h"
#include "tests/sinks/mariadb/state_test_db.h"

namespace sluice {
namespace {

using testing::state_test_db;

table_plan shard_plan(const table_rows& rows, const std::string& shard_column) {
  table_plan p;
  p.rows = &rows;
  p.target = {"s", "orders"};
  p.shard_column = shard_column;
  p.rejected = {0};  // one accepted row
  return p;
}

TEST_CASE("mariadb route registry: shards keyed by one shard column share a target") {
  state_test_db db("mdb_shard_routes");
  table_entry db1, db2, plain;
  db1.name = table_name{"db1", "app", "orders"};
  db2.name = table_name{"db2", "app", "orders"};
  plain.name = table_name{"db3", "app", "orders"};
  table_rows from_db1, from_db2, from_plain;
  from_db1.table = &db1;
  from_db2.table = &db2;
  from_plain.table = &plain;
  from_db1.rows.emplace_back();
  from_db2.rows.emplace_back();
  from_plain.rows.emplace_back();
  const std::string shard = "__dbz__physicalTableIdentifier";

  // db1's lane claims the target, with its shard column.
  mdb::route_registry first(db.schema, "c");
  std::vector<table_plan> mine{shard_plan(from_db1, shard)};
  first.learn(db.in_tx([&](mdb::connection& c) { return first.claim(c, mine); }));
  std::vector<dead_letter> rejects;
  first.enforce(mine, rejects);
  CHECK(rejects.empty());

  // Another lane: db2, keyed by the same column, is admitted; db3, keyed without it, is not.
  mdb::route_registry second(db.schema, "c");
  std::vector<table_plan> theirs{shard_plan(from_db2, shard), shard_plan(from_plain, "")};
  second.learn(db.in_tx([&](mdb::connection& c) { return second.claim(c, theirs); }));
  second.enforce(theirs, rejects);
  REQUIRE(rejects.size() == 1);
  CHECK(rejects[0].kind == dead_letter_kind::routing);
  CHECK(rejects[0].reason.find("db3.app.orders folds onto") != std::string::npos);
  CHECK(rejects[0].reason.find("ByLogicalTableRouter") != std::string::npos);
  CHECK(theirs[0].rejected.at(0) == 0);
  CHECK(theirs[1].rejected.at(0) != 0);
  // One claim, db1's, by the shard column.
  const mdb::result claims =
      db.conn.query("SELECT source_database, shard_column FROM " + db.schema.table("routes"));
  REQUIRE(claims.rows.size() == 1);
  CHECK(claims.at(0, 0) == "db1");
  CHECK(claims.at(0, 1) == shard);
}

}  // namespace
}  // namespace sluice
