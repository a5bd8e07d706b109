#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "connector/config/config.h"
#include "connector/config/config_loader.h"
#include "connector/config/config_reference.h"
#include "connector/config/redact.h"

// The mariadb: section (connector/config/config_table_mariadb.cc) and the rule that a config
// names exactly one target, postgres.dsn or mariadb.dsn.

using namespace sluice;
using namespace std::chrono_literals;

namespace {

const std::string head = R"yaml(name: orders-replica
kafka:
  bootstrap.servers: 127.0.0.1:9092
topics: [cdc.orders]
)yaml";

const std::string mariadb_dsn = "mariadb://sluice:s3cret@127.0.0.1:3306/replica";

load_result load(const std::string& text, const std::map<std::string, std::string>& vars = {}) {
  return load_config(
      text,
      [vars](std::string_view name) -> std::optional<std::string> {
        const auto it = vars.find(std::string(name));
        if (it == vars.end()) return std::nullopt;
        return it->second;
      },
      "sluice.yaml");
}

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

}  // namespace

TEST_CASE("a mariadb section loads and names MariaDB as the target") {
  const load_result r = load(head + "mariadb:\n  dsn: " + mariadb_dsn +
                             "\n  state.database: sluice_state\n"
                             "  statement.timeout: 5s\n  lock.timeout: 3s\n"
                             "  ddl.lock.timeout: 1s\n  idle.in.transaction.timeout: 1m\n"
                             "  round.trip.timeout: 20s\n  retry.timeout: 10m\n"
                             "  connect.timeout: 4s\n");
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  const config& c = *r;
  CHECK(c.targets_mariadb());
  CHECK(c.mariadb.dsn == mariadb_dsn);
  CHECK(c.target_dsn() == mariadb_dsn);
  CHECK(c.postgres.dsn.empty());
  CHECK(c.mariadb.state_database == "sluice_state");
  CHECK(c.state_schema() == "sluice_state");
  CHECK(c.mariadb.statement_timeout == 5s);
  CHECK(c.mariadb.lock_timeout == 3s);
  CHECK(c.mariadb.ddl_lock_timeout == 1s);
  CHECK(c.mariadb.idle_in_transaction_timeout == 1min);
  CHECK(c.mariadb.round_trip_timeout == 20s);
  CHECK(c.mariadb.retry_timeout == 10min);
  CHECK(c.mariadb.connect_timeout == 4s);
}

TEST_CASE("the mariadb keys default like their postgres siblings") {
  const load_result r = load(head + "mariadb.dsn: " + mariadb_dsn + "\n");
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  const mariadb_config& m = r->mariadb;
  CHECK(m.state_database == "sluice");
  CHECK(m.retry_timeout == 0s);
  CHECK(m.connect_timeout == 10s);
  CHECK(m.statement_timeout == 60s);
  CHECK(m.lock_timeout == 30s);
  CHECK(m.ddl_lock_timeout == 2s);
  CHECK(m.ddl_statement_timeout == 0s);
  CHECK(m.idle_in_transaction_timeout == 120s);
  CHECK(m.round_trip_timeout == 90s);
}

TEST_CASE("a postgres config still names PostgreSQL as the target") {
  const load_result r = load(head + "postgres.dsn: postgresql://sluice@127.0.0.1/replica\n");
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  CHECK_FALSE(r->targets_mariadb());
  CHECK(r->target_dsn() == "postgresql://sluice@127.0.0.1/replica");
  CHECK(r->state_schema() == "sluice");
}

TEST_CASE("both postgres.dsn and mariadb.dsn are refused, naming both keys") {
  const load_result r =
      load(head + "postgres.dsn: postgresql://h/db\nmariadb.dsn: " + mariadb_dsn + "\n");
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.errors().size() == 1);
  const config_error& e = r.errors().front();
  CHECK(e.key == "mariadb.dsn");
  CHECK(e.line == 6);
  CHECK(contains(e.message, "postgres.dsn and mariadb.dsn exclude each other"));
  // The error never quotes the password.
  CHECK_FALSE(contains(r.error_text(), "s3cret"));
}

TEST_CASE("neither postgres.dsn nor mariadb.dsn is refused, naming both keys") {
  const load_result r = load(head);
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.errors().size() == 1);
  const config_error& e = r.errors().front();
  CHECK(e.key == "postgres.dsn");
  CHECK(contains(e.message, "required"));
  CHECK(contains(e.message, "postgres.dsn"));
  CHECK(contains(e.message, "mariadb.dsn"));
}

TEST_CASE("an empty mariadb.dsn is an error, not a missing target") {
  const load_result r = load(head + "mariadb.dsn: \"\"\n");
  REQUIRE_FALSE(r.ok());
  bool on_mariadb = false;
  for (const auto& e : r.errors())
    on_mariadb = on_mariadb || e.key == "mariadb.dsn";
  CHECK(on_mariadb);
}

TEST_CASE("describe redacts the mariadb.dsn password, in the URI and in its query") {
  const load_result r =
      load(head + "mariadb.dsn: mariadb://sluice:${PW}@db:3306/replica?ssl-mode=REQUIRED\n",
           {{"PW", "pa55word"}});
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  const std::string shown = describe(*r);
  CHECK(contains(shown, "mariadb://sluice:***@db:3306/replica?ssl-mode=REQUIRED"));
  CHECK_FALSE(contains(shown, "pa55word"));
  // Logs and errors quoting the DSN go through redact(): the password is found by its shape.
  CHECK_FALSE(contains(redact(r->mariadb.dsn), "pa55word"));

  const load_result q =
      load(head + "mariadb.dsn: mariadb://db:3306/replica?user=sluice&password=k3y\n");
  REQUIRE_MESSAGE(q.ok(), q.error_text());
  CHECK_FALSE(contains(describe(*q), "k3y"));
}

TEST_CASE("a mariadb.dsn value that does not type is reported without its password") {
  const load_result r = load(head + "mariadb.dsn: [mariadb://sluice:s3cret@db/replica]\n");
  REQUIRE_FALSE(r.ok());
  CHECK_FALSE(contains(r.error_text(), "s3cret"));
}

TEST_CASE("the reference documents the mariadb keys and the one-target rule") {
  const std::string doc = config_reference_markdown();
  CHECK(contains(doc, "`mariadb.dsn`"));
  CHECK(contains(doc, "`mariadb.state.database`"));
  CHECK(contains(doc, "Exactly one of postgres.dsn and mariadb.dsn"));
}

TEST_CASE("mariadb.state.database is held to MariaDB's 64-character limit, not PostgreSQL's") {
  const std::string name64(64, 'd');
  const load_result ok =
      load(head + "mariadb.dsn: \"" + mariadb_dsn + "\"\nmariadb.state.database: " + name64 + "\n");
  REQUIRE_MESSAGE(ok.ok(), ok.error_text());
  CHECK(ok->mariadb.state_database == name64);

  const load_result long_one = load(head + "mariadb.dsn: \"" + mariadb_dsn +
                                    "\"\nmariadb.state.database: " + name64 + "d\n");
  REQUIRE_FALSE(long_one.ok());
  CHECK(contains(long_one.error_text(), "MariaDB's 64-character identifier limit"));
  CHECK_FALSE(contains(long_one.error_text(), "PostgreSQL"));
}

TEST_CASE("insert.mode update and ByLogicalTableRouter load for a mariadb target") {
  const std::string target = "mariadb:\n  dsn: " + mariadb_dsn + "\n";
  const load_result update =
      load(head + target + "insert.mode: update\nprimary.key.mode: record_key\n");
  REQUIRE_MESSAGE(update.ok(), update.error_text());
  CHECK(update->insert == insert_mode::update);
  CHECK(update->targets_mariadb());
  const load_result router = load(head + target +
                                  "transforms: [shards]\ntransforms.shards.type: "
                                  "io.debezium.transforms.ByLogicalTableRouter\n"
                                  "transforms.shards.topic.regex: (.*)\n"
                                  "transforms.shards.topic.replacement: all\n");
  REQUIRE_MESSAGE(router.ok(), router.error_text());
  CHECK(router->transforms == std::vector<std::string>{"shards"});
  // What holds on PostgreSQL holds here: an update still needs a key to find its row, and an
  // append mode still keys no shard.
  const load_result keyless =
      load(head + target + "insert.mode: update\nprimary.key.mode: kafka\n");
  REQUIRE_FALSE(keyless.ok());
  CHECK(keyless.errors().front().key == "insert.mode");
  const load_result append = load(head + target +
                                  "insert.mode: insert\ntransforms: [shards]\n"
                                  "transforms.shards.type: "
                                  "io.debezium.transforms.ByLogicalTableRouter\n"
                                  "transforms.shards.topic.regex: (.*)\n"
                                  "transforms.shards.topic.replacement: all\n");
  REQUIRE_FALSE(append.ok());
  CHECK(contains(append.error_text(), "transforms.shards.type"));
  CHECK_FALSE(contains(append.error_text(), "MariaDB"));
}
