#include <doctest/doctest.h>

#include <string>

#include "sinks/mariadb/mdb_check.h"
#include "sinks/mariadb/session/state_schema.h"
#include "sinks/mariadb/sql/mdb_identifier.h"
#include "tests/sinks/mariadb/mdb_test_env.h"

namespace sluice {
namespace {

using status = sink::check_status;

std::string describe(const std::vector<sink::check_finding>& found) {
  std::string out;
  for (const auto& f : found)
    out += f.area + " | " + f.subject + " | " + std::to_string(int(f.status)) + " | " + f.detail +
           "\n";
  return out;
}

const sink::check_finding* find(const std::vector<sink::check_finding>& found,
                                const std::string& area, const std::string& subject) {
  for (const auto& f : found)
    if (f.area == area && f.subject == subject) return &f;
  return nullptr;
}

// The DSN with another user and password.
std::string as_user(std::string dsn, const std::string& user, const std::string& password) {
  const size_t start = dsn.find("//") + 2;
  return dsn.replace(start, dsn.find('@') - start, user + ":" + password);
}

TEST_CASE("mariadb check: the fixture's user has everything the configuration needs") {
  mdb::connection admin(testing::mariadb_settings());
  const std::string target = testing::unique_name("chk_target");
  admin.exec("CREATE DATABASE " + mdb::quote_identifier(target) +
             " CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin");
  session_options o;
  o.dsn = testing::mariadb_dsn();
  o.state_schema = testing::unique_name("chk_state");  // absent: the first run creates it
  sink::check_request r;
  r.shown_target = "the fixture";
  r.target_schemas = {target, testing::unique_name("chk_absent")};
  r.dynamic_schemas = true;
  auto found = mdb::check_mariadb(o, r);
  INFO(describe(found));
  for (const auto& f : found)
    CHECK(f.status == status::ok);
  REQUIRE(find(found, "mariadb", "the fixture"));
  CHECK(find(found, "mariadb", "the fixture")->detail.starts_with("MariaDB 10."));
  CHECK(find(found, "state", "database " + o.state_schema)->detail.starts_with("absent"));
  CHECK(find(found, "privileges", "target database " + target));
  CHECK(find(found, "collation", "target database " + target));
  CHECK_FALSE(find(found, "server", "local_infile"));  // never used: rows are array-bound
  CHECK(find(found, "server", "max_allowed_packet"));

  // Migrated: at this build's version. Nothing was created by check itself.
  CHECK(admin
            .query("SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
                   std::vector{mdb::param::text(o.state_schema)})
            .empty());
  mdb::state_schema(o.state_schema).migrate(admin);
  found = mdb::check_mariadb(o, r);
  CHECK(find(found, "state", "database " + o.state_schema)->detail ==
        "at version " + std::to_string(mdb::state_schema::current_version));

  // The fixture's own database keeps the server's default, case-insensitive collation.
  r.target_schemas = {"replica"};
  found = mdb::check_mariadb(o, r);
  REQUIRE(find(found, "collation", "target database replica"));
  CHECK(find(found, "collation", "target database replica")->status == status::warn);
}

TEST_CASE("mariadb check: a user with SELECT alone gets failures naming what it lacks") {
  mdb::connection admin(testing::mariadb_settings());
  const std::string user = testing::unique_name("chk_ro");
  admin.exec("CREATE USER '" + user + "'@'%' IDENTIFIED BY 'pw-ro'");
  admin.exec("GRANT SELECT ON *.* TO '" + user + "'@'%'");
  session_options o;
  o.dsn = as_user(testing::mariadb_dsn(), user, "pw-ro");
  o.state_schema = testing::unique_name("chk_state");
  sink::check_request r;
  r.target_schemas = {"replica"};
  const auto found = mdb::check_mariadb(o, r);
  INFO(describe(found));
  admin.exec("DROP USER '" + user + "'@'%'");
  const auto* server = find(found, "mariadb", "");
  REQUIRE(server);
  CHECK(server->status == status::ok);
  const auto* state = find(found, "state", "database " + o.state_schema);
  REQUIRE(state);
  CHECK(state->status == status::fail);
  CHECK(state->detail.find("CREATE") != std::string::npos);
  const auto* target = find(found, "privileges", "target database replica");
  REQUIRE(target);
  CHECK(target->status == status::fail);
  CHECK(target->detail ==
        "lacks CREATE, ALTER, INDEX, INSERT, UPDATE, DELETE, CREATE TEMPORARY TABLES");
}

TEST_CASE("mariadb check: an unreachable server and a DSN that does not parse") {
  session_options o;
  o.dsn = "mariadb://u:secret@127.0.0.1:1/replica";
  sink::check_request r;
  r.timeout = std::chrono::milliseconds(2'000);
  auto found = mdb::check_mariadb(o, r);
  REQUIRE(found.size() == 1);
  CHECK(found[0].status == status::unreachable);
  CHECK(found[0].error_text);
  o.dsn = "mariadb://u:secret@127.0.0.1:port/replica";
  found = mdb::check_mariadb(o, r);
  REQUIRE(found.size() == 1);
  CHECK(found[0].status == status::config_error);
}

}  // namespace
}  // namespace sluice
