// `sluice dead-letters` against the real broker and MariaDB (SPEC §6b): a table whose DDL
// fails (a view holds its name) leaves ddl_failed letters in MariaDB; a replay before the fix
// keeps them under their ids, with the reason of now; after the fix the replay applies them
// and they leave. The PostgreSQL counterpart: dead_letters_e2e_test.cc.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "integration/e2e/mariadb_e2e_support.h"
#include "integration/support/datastream_events.h"
#include "integration/support/mariadb_replica.h"
#include "integration/support/services.h"
#include "integration/support/sluice_process.h"

namespace sluice::testing {
TEST_CASE("mariadb e2e: dead letters replayed before the fix keep their ids, after it leave") {
  const std::string topic = unique_name("mdb_letters");
  const std::string connector = unique_name("mdb_letters");
  const std::string db = unique_name("mdb_lettered");
  create_topic(topic, 1);
  mariadb_query("CREATE DATABASE `" + db + "`");
  mariadb_query("CREATE VIEW `" + db + "`.blocked AS SELECT 1 AS id");
  produce(topic, {datastream_record(db, "blocked", 1, 103, ",\"v\":\"one\""),
                  datastream_record(db, "blocked", 2, 104, ",\"v\":\"two\""),
                  datastream_record(db, "fine", 1, 105, ",\"v\":\"x\"")});
  const std::string yaml = mariadb_config(connector, topic, "datastream", "", 100);
  const std::string config = write_run_file("mdb_letters", yaml);
  {
    sluice_process p(yaml);
    REQUIRE_MESSAGE(mariadb_caught_up(connector, 3), p.log());
    CHECK(p.stop() == 0);
  }
  CHECK(cell("SELECT count(*) FROM `" + db + "`.fine") == "1");
  const std::string where =
      " FROM `sluice`.dead_letters WHERE connector = '" + connector + "' AND kind = 'ddl_failed'";
  const std::string ids = "SELECT GROUP_CONCAT(id ORDER BY id)" + where;
  REQUIRE(cell("SELECT count(*)" + where) == "2");
  const std::string ids_before = cell(ids);

  // Listed from MariaDB.
  const command_result listed =
      run_sluice({"dead-letters", "list", "-c", config, "--table", db + ".blocked", "--json"});
  INFO(listed.out << listed.err);
  CHECK(listed.exit_code == 0);
  CHECK(listed.out.find("\"table\":\"" + db + ".blocked\"") != std::string::npos);

  // Replayed before the cause is fixed: they fail again and stay under the ids they had (an id
  // noted by an operator, or an --up-to-id, still names them), with the reason of now.
  mariadb_query(
      "UPDATE `sluice`.dead_letters SET reason = 'the reason of then' WHERE connector "
      "= '" +
      connector + "'");
  const command_result early =
      run_sluice({"dead-letters", "replay", "-c", config, "--table", db + ".blocked"});
  INFO(early.out << early.err);
  CHECK(early.exit_code == 1);  // not done: a script must not read this as success
  CHECK(early.out.find("failing again   2") != std::string::npos);
  CHECK(cell(ids) == ids_before);
  CHECK(cell("SELECT count(*)" + where + " AND reason = 'the reason of then'") == "0");

  // Fixed: the replay applies both and they leave.
  mariadb_query("DROP VIEW `" + db + "`.blocked");
  const command_result fixed =
      run_sluice({"dead-letters", "replay", "-c", config, "--kind", "ddl_failed"});
  INFO(fixed.out << fixed.err);
  CHECK(fixed.exit_code == 0);
  CHECK(fixed.out.find("letters taken   2") != std::string::npos);
  CHECK(cell("SELECT count(*)" + where) == "0");
  CHECK(cell("SELECT GROUP_CONCAT(v ORDER BY id) FROM `" + db + "`.blocked") == "one,two");
  mariadb_query("DROP DATABASE `" + db + "`");
}

}  // namespace sluice::testing
