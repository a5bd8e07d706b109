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

}  // namespace sluice::testing
