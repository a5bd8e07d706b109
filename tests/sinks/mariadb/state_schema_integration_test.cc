#include <doctest/doctest.h>

#include <string>

#include "sinks/mariadb/session/state_schema.h"
#include "sinks/mariadb/sql/mdb_identifier.h"
#include "tests/sinks/mariadb/mdb_test_env.h"

namespace sluice {
namespace {

TEST_CASE("mariadb state schema: created once, every table there, migrating again is a no-op") {
  mdb::connection c(testing::mariadb_settings());
  const std::string db = testing::unique_name("state");
  const mdb::state_schema schema(db);
  CHECK(schema.migrate(c) == 0);
  CHECK(schema.migrate(c) == mdb::state_schema::current_version);
  const auto tables =
      c.query("SELECT table_name FROM information_schema.tables WHERE table_schema = ? ORDER BY 1",
              std::vector{mdb::param::text(db)});
  std::string names;
  for (const auto& row : tables.rows)
    names += *row.at(0) + " ";
  CHECK(names ==
        "catalog connector_control ddl_history dead_letters key_locks lock_buckets members offsets "
        "pending_fragments registry_schemas routes schema_version table_locks table_progress "
        "tombstones ");
  CHECK(c.query("SELECT count(*) FROM " + schema.table("lock_buckets")).at(0, 0) == "4096");
  CHECK(c.query("SELECT count(*) FROM " + schema.table("key_locks")).at(0, 0) == "0");
  // Names compare exactly: no case folding, no padding.
  c.exec("INSERT INTO " + schema.table("offsets") +
         " (connector, topic, `partition`) VALUES ('c', 't', 0), ('C', 't', 0), ('c ', 't', 0)");
  CHECK(c.query("SELECT count(*) FROM " + schema.table("offsets")).at(0, 0) == "3");
  c.exec("DROP DATABASE " + mdb::quote_identifier(db));
}

TEST_CASE("mariadb state schema: version 1 is upgraded to 2, key_locks added, once") {
  mdb::connection c(testing::mariadb_settings());
  const std::string db = testing::unique_name("state_v1");
  const mdb::state_schema schema(db);
  schema.migrate(c);
  // Back to version 1 as a sluice of that version left it.
  c.exec("DROP TABLE " + schema.table("key_locks"));
  c.exec("DELETE FROM " + schema.table("schema_version") + " WHERE version = 2");
  CHECK(schema.migrate(c) == 1);
  CHECK(c.query("SELECT count(*) FROM " + schema.table("key_locks")).at(0, 0) == "0");
  CHECK(c.query("SELECT group_concat(version ORDER BY version) FROM " +
                schema.table("schema_version"))
            .at(0, 0) == "1,2");
  CHECK(schema.migrate(c) == 2);
  c.exec("DROP DATABASE " + mdb::quote_identifier(db));
}

TEST_CASE("mariadb state schema: a newer version than this build is refused") {
  mdb::connection c(testing::mariadb_settings());
  const std::string db = testing::unique_name("state_newer");
  const mdb::state_schema schema(db);
  schema.migrate(c);
  c.exec("INSERT INTO " + schema.table("schema_version") + " (version) VALUES (999)");
  CHECK_THROWS_WITH_AS(schema.migrate(c), doctest::Contains("newer than this sluice"),
                       std::runtime_error);
  c.exec("DROP DATABASE " + mdb::quote_identifier(db));
}

}  // namespace
}  // namespace sluice
