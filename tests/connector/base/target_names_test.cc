#include "connector/base/target_names.h"

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <string_view>

#include "connector/config/config_loader.h"

// How the connector names its target (connector/base/target_names.h).

namespace sluice {
namespace {

config loaded(const std::string& target) {
  const std::string yaml =
      "name: n\nkafka: {bootstrap.servers: \"127.0.0.1:9092\"}\ntopics: [a]\n" + target;
  const load_result r =
      load_config(yaml, [](std::string_view) -> std::optional<std::string> { return {}; });
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  return *r;
}

}  // namespace

TEST_CASE("a config with postgres.dsn names PostgreSQL as it always did") {
  const target_kind t = target_of(loaded("postgres.dsn: \"postgresql://u@db/r\"\n"));
  CHECK(t == target_kind::postgres);
  CHECK(target_id(t) == "postgres");
  CHECK(target_display_name(t) == "PostgreSQL");
}

TEST_CASE("a config with mariadb.dsn names MariaDB everywhere") {
  const target_kind t = target_of(loaded("mariadb.dsn: \"mariadb://u@db:3306/r\"\n"));
  CHECK(t == target_kind::mariadb);
  CHECK(target_id(t) == "mariadb");
  CHECK(target_display_name(t) == "MariaDB");
}

}  // namespace sluice
