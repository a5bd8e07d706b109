#include "connector/check/target_check.h"

#include <doctest/doctest.h>

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "connector/config/config_loader.h"

// Which target schemas `sluice check` looks at (connector/check/target_check.h).

namespace sluice {
namespace {

config loaded(const std::string& target, const std::string& extra = "") {
  const std::string yaml =
      "name: n\nkafka: {bootstrap.servers: \"127.0.0.1:9092\"}\ntopics: [a]\n" + target + extra;
  const load_result r =
      load_config(yaml, [](std::string_view) -> std::optional<std::string> { return {}; });
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  return *r;
}

std::set<std::string> schemas(const config& c, bool* dynamic = nullptr) {
  bool d = false;
  std::set<std::string> out = static_target_schemas(c, d);
  if (dynamic) *dynamic = d;
  return out;
}

const std::string k_postgres = "postgres.dsn: \"postgresql://u@db/r\"\n";

}  // namespace

TEST_CASE("on PostgreSQL an unqualified target name is checked in the public schema") {
  CHECK(schemas(loaded(k_postgres, "table.name.format: \"${table}\"\n")) ==
        std::set<std::string>{"public"});
  CHECK(schemas(loaded(k_postgres, "table.name.format: \"Repl.${table}\"\n")) ==
        std::set<std::string>{"repl"});
  bool dynamic = false;
  CHECK(schemas(loaded(k_postgres), &dynamic).empty());  // ${schema}.${table}
  CHECK(dynamic);
}

TEST_CASE("on MariaDB an unqualified target name is checked in the DSN's database") {
  const config c = loaded("mariadb.dsn: \"mariadb://u:p%2Fq@db:3306/replica?ssl-mode=DISABLED\"\n",
                          "table.name.format: \"${table}\"\n"
                          "tables: {\"S.T\": {target: other.t}, \"S.U\": {target: u}}\n");
  CHECK(schemas(c) == std::set<std::string>{"other", "replica"});
  // Percent-encoded, as the sink decodes it; no path: no database to look at.
  CHECK(schemas(loaded("mariadb.dsn: \"mysql://u@db/my%2Ddb\"\n",
                       "table.name.format: \"${table}\"\n")) == std::set<std::string>{"my-db"});
  CHECK(
      schemas(loaded("mariadb.dsn: \"mariadb://u@db:3306\"\n", "table.name.format: \"${table}\"\n"))
          .empty());
}

}  // namespace sluice
