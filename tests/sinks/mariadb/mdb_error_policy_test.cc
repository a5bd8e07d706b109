#include <doctest/doctest.h>

#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sinks/mariadb/session/mdb_error_policy.h"

namespace sluice {
namespace {

using action = target_error_action;

TEST_CASE("mariadb error policy: every number named by the policy gets its action") {
  const std::vector<std::pair<action, std::vector<unsigned>>> table = {
      {action::retry, {1213, 1205, 1969, 3024, 1684, 1021, 1114, 1037, 1041}},
      {action::reconnect, {2006, 2013, 2055, 1927, 4031, 1053, 2002, 2003, 1040, 1290, 1836}},
      {action::refused, {1045, 1698, 1044, 1049, 1129, 1130, 2026}},
      {action::reject,
       {1062, 1048, 1264, 1265, 1292, 1366, 1406, 1452, 1451, 3140, 4038, 4025, 1690, 1367, 1411}},
      {action::fatal, {1146, 1054, 1064, 1142, 1227, 0, 9999}},
  };
  for (const auto& [expected, codes] : table) {
    for (unsigned code : codes) {
      CAPTURE(code);
      CHECK(std::string(to_string(mdb::classify_error_code(code))) == to_string(expected));
    }
  }
}

TEST_CASE("mariadb error policy: the exception's class, SQLSTATE and first line") {
  const auto deadlock = mdb::classify_mdb_error(
      mdb::mdb_error(1213, "40001", "Deadlock found when trying to get lock\nsecond line"));
  CHECK(deadlock.action == action::retry);
  CHECK(deadlock.sqlstate == "40001");
  CHECK(deadlock.message == "1213: Deadlock found when trying to get lock");
  CHECK(deadlock.code == "1213");

  // Lost during COMMIT: in doubt, not merely reconnect.
  const mdb::mdb_error lost(2013, "HY000", "Lost connection to server during query");
  CHECK(mdb::classify_mdb_error(lost).action == action::reconnect);
  CHECK(mdb::classify_mdb_error(mdb::commit_in_doubt(lost)).action == action::in_doubt);

  CHECK(mdb::classify_mdb_error(std::bad_alloc()).action == action::retry);
  CHECK(mdb::classify_mdb_error(std::runtime_error("bug\nmore")).action == action::fatal);
  CHECK(mdb::classify_mdb_error(std::runtime_error("bug\nmore")).message == "bug");
  CHECK(mdb::classify_mdb_error(std::make_exception_ptr(42)).action == action::fatal);
}

TEST_CASE(
    "mariadb error policy: while connecting, a client error is unreachable, a login refused") {
  CHECK(mdb::classify_connect_error(mdb::mdb_error(2003, "HY000", "Can't connect")).action ==
        action::reconnect);
  // Connector/C's other client errors while connecting (a handshake cut short) are waited out.
  CHECK(mdb::classify_connect_error(mdb::mdb_error(2027, "HY000", "Malformed packet")).action ==
        action::reconnect);
  CHECK(mdb::classify_connect_error(mdb::mdb_error(1045, "28000", "Access denied")).action ==
        action::refused);
  CHECK(mdb::classify_connect_error(mdb::mdb_error(2026, "HY000", "TLS/SSL error")).action ==
        action::refused);
  // An init statement the server does not know: fatal, not waited out forever.
  CHECK(mdb::classify_connect_error(mdb::mdb_error(1193, "HY000", "Unknown system variable"))
            .action == action::fatal);
  CHECK(mdb::classify_connect_error(std::runtime_error("MariaDB 10.5 is too old")).action ==
        action::fatal);
}

}  // namespace
}  // namespace sluice
