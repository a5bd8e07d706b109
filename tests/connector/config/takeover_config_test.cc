// offsets.takeover.group at load (issue 28): empty by default, a group of its own, and never
// sluice's own consumer group, whether kafka.group.id is written or defaults to the name.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "connector/config/config_loader.h"

namespace sluice {
namespace {

const std::string minimal = R"yaml(name: orders-replica
kafka:
  bootstrap.servers: 127.0.0.1:9092
topics: [cdc.orders]
postgres:
  dsn: postgresql://sluice@127.0.0.1:5432/replica
)yaml";

load_result load(const std::string& text) {
  return load_config(
      text, [](std::string_view) -> std::optional<std::string> { return std::nullopt; },
      "sluice.yaml");
}

TEST_CASE("offsets.takeover.group: empty by default, a connector's group taken as written") {
  const load_result none = load(minimal);
  REQUIRE_MESSAGE(none.ok(), none.error_text());
  CHECK(none->takeover_group.empty());
  const load_result r = load(minimal + "offsets.takeover.group: connect-orders\n");
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  CHECK(r->takeover_group == "connect-orders");
}

TEST_CASE("offsets.takeover.group equal to sluice's own group is an error at its line and column") {
  // group.id defaults to the connector's name.
  const load_result by_name = load(minimal + "offsets:\n  takeover.group: orders-replica\n");
  REQUIRE_FALSE(by_name.ok());
  REQUIRE(by_name.errors().size() == 1);
  const config_error& e = by_name.errors().front();
  CHECK(e.key == "offsets.takeover.group");
  CHECK(e.line == 8);
  CHECK(e.column == 19);
  CHECK(e.message.find("sluice's own group") != std::string::npos);

  const std::string own_group = R"yaml(name: orders-replica
kafka:
  bootstrap.servers: 127.0.0.1:9092
  group.id: sluice-orders
topics: [cdc.orders]
postgres.dsn: postgresql://sluice@127.0.0.1:5432/replica
)yaml";
  const load_result given = load(own_group + "offsets.takeover.group: sluice-orders\n");
  REQUIRE_FALSE(given.ok());
  CHECK(given.errors().front().to_string().rfind("sluice.yaml:7:25: offsets.takeover.group: ", 0) ==
        0);
  // A group of its own beside the connector's: fine.
  const load_result apart = load(own_group + "offsets.takeover.group: connect-orders\n");
  CHECK_MESSAGE(apart.ok(), apart.error_text());
}

}  // namespace
}  // namespace sluice
