#include "integration/support/mariadb_replica.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "integration/support/services.h"
#include "integration/support/sluice_process.h"
#include "sinks/mariadb/session/mdb_connection.h"

namespace sluice::testing {

std::string mariadb_dsn() {
  std::ifstream in(run_dir() + "/mariadb.dsn");
  std::string dsn;
  std::getline(in, dsn);
  REQUIRE_MESSAGE(!dsn.empty(), "no mariadb.dsn in the run dir: the test needs FIXTURES mariadb");
  return dsn;
}

std::vector<mariadb_row> mariadb_query(const std::string& sql) {
  mdb::connect_settings s;
  s.target = mdb::parse_dsn(mariadb_dsn());
  s.program = "sluice:e2e-check";
  s.init = {"SET SESSION time_zone = '+00:00'"};
  mdb::connection c(s);
  return c.query(sql).rows;
}

std::string mariadb_config(const std::string& name, const std::string& topic,
                           const std::string& format, const std::string& extra, int batch_size) {
  return config_for_target("mariadb:\n  dsn: \"" + mariadb_dsn() + "\"\n", name, topic, format,
                           extra, batch_size);
}

int64_t mariadb_committed(const std::string& connector) {
  if (mariadb_query("SELECT 1 FROM information_schema.tables WHERE table_schema = 'sluice' AND "
                    "table_name = 'offsets'")
          .empty())
    return 0;
  const auto rows =
      mariadb_query("SELECT coalesce(sum(next_offset), 0) FROM sluice.offsets WHERE connector = '" +
                    connector + "'");
  return std::stoll(rows.at(0).at(0).value_or("0"));
}

bool mariadb_caught_up(const std::string& connector, int64_t total, std::chrono::seconds timeout) {
  return wait_until([&] { return mariadb_committed(connector) >= total; }, timeout);
}

int64_t mariadb_dead_letter_count(const std::string& topic) {
  return std::stoll(
      mariadb_query("SELECT count(*) FROM sluice.dead_letters WHERE topic = '" + topic + "'")
          .at(0)
          .at(0)
          .value_or("0"));
}

std::string mariadb_dead_letter_reasons(const std::string& topic) {
  std::string out;
  for (const auto& r :
       mariadb_query("SELECT reason FROM sluice.dead_letters WHERE topic = '" + topic + "'"))
    out += r.at(0).value_or("<null>") + "\n";
  return out;
}

std::map<std::string, std::string> mariadb_column_types(const std::string& database,
                                                        const std::string& table) {
  const std::string where =
      " WHERE table_schema = '" + database + "' AND table_name = '" + table + "'";
  std::map<std::string, std::string> json;  // MariaDB names a column's json check after it
  for (const auto& r : mariadb_query("SELECT constraint_name, check_clause FROM "
                                     "information_schema.check_constraints WHERE "
                                     "constraint_schema = '" +
                                     database + "' AND table_name = '" + table + "'"))
    json[r.at(0).value_or("")] = r.at(1).value_or("");
  std::map<std::string, std::string> out;
  for (const auto& r : mariadb_query(
           "SELECT column_name, column_type, collation_name FROM information_schema.columns" +
           where + " AND column_name NOT LIKE '\\_sluice\\_%'")) {
    const std::string column = r.at(0).value_or("");
    const auto check = json.find(column);
    if (check != json.end() && check->second == "json_valid(`" + column + "`)") {
      out[column] = "json";
    } else {
      out[column] = r.at(1).value_or("") + (r.at(2) ? " COLLATE " + *r.at(2) : "");
    }
  }
  return out;
}

}  // namespace sluice::testing
