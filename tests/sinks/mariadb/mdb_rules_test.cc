#include "sinks/mariadb/plan/mdb_rules.h"

#include <doctest/doctest.h>

namespace sluice {
namespace {

TEST_CASE("mariadb rules: 64-byte names, the state database and the server's own refused") {
  const target_rules rules = mdb::mariadb_target_rules("sluice_state");
  CHECK(rules.max_identifier_bytes == 64);
  REQUIRE(rules.reserved);
  CHECK_FALSE(rules.reserved({"shop", "orders"}));
  CHECK_FALSE(rules.reserved({"mysql_app", "t"}));  // only the names themselves
  CHECK(rules.reserved({"sluice_state", "offsets"}).value().find("sluice's state database") !=
        std::string::npos);
  for (const char* system : {"mysql", "information_schema", "performance_schema", "sys"})
    CHECK_MESSAGE(rules.reserved({system, "t"}), system);
  // lower_case_table_names may fold: `MySQL` is `mysql` there.
  CHECK(rules.reserved({"MySQL", "user"}));
  CHECK(rules.reserved({"Information_Schema", "t"}));
  CHECK(rules.reserved({"SLUICE_state", "t"}));
}

}  // namespace
}  // namespace sluice
