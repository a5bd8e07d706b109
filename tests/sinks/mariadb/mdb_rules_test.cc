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
  // MariaDB's identifiers are utf8mb3: no 4-byte characters; 2 and 3 bytes are fine.
  CHECK(rules.reserved({"shop", "t_\xF0\x9F\x98\x80"}).value().find("utf8mb3") !=
        std::string::npos);
  CHECK(rules.reserved({"\xF0\x9F\x98\x80", "t"}));
  CHECK_FALSE(rules.reserved({"caf\xC3\xA9", "\xE4\xB8\xAD"}));
}

}  // namespace
}  // namespace sluice
