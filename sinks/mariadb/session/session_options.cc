#include "sinks/mariadb/session/session_options.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace sluice::mdb {
namespace {

// The largest value MariaDB takes for innodb_lock_wait_timeout (its "no limit").
constexpr int64_t innodb_lock_wait_max = 1073741824;
// lock_wait_timeout's maximum (and MariaDB's default): one year.
constexpr int64_t metadata_lock_wait_max = 31536000;

// Whole seconds, rounded up: a limit under a second is a second, never "none".
int64_t whole_seconds(std::chrono::milliseconds ms) {
  return (ms.count() + 999) / 1000;
}

// Seconds with the milliseconds kept (max_statement_time takes a fraction).
std::string fractional_seconds(std::chrono::milliseconds ms) {
  const int64_t n = ms.count();
  std::string fraction = std::to_string(n % 1000);
  fraction.insert(0, 3 - fraction.size(), '0');
  return std::to_string(n / 1000) + "." + fraction;
}

std::string lock_wait(std::chrono::milliseconds ms, int64_t unlimited) {
  if (ms.count() <= 0) return std::to_string(unlimited);
  return std::to_string(std::min(whole_seconds(ms), unlimited));
}

}  // namespace

connect_settings make_connect_settings(const session_options& options, const std::string& role) {
  connect_settings s;
  try {
    s.target = parse_dsn(options.dsn);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("mariadb.dsn does not parse: ") + e.what());
  }
  s.program = role.empty() ? options.application_name : options.application_name + ":" + role;
  s.connect_timeout = options.connect_timeout;
  s.io_timeout = options.round_trip_timeout.count() > 0 ? options.round_trip_timeout
                                                        : std::chrono::milliseconds(0);
  s.init = session_init(options, sql_dialect::mariadb());
  s.init_mysql = session_init(options, sql_dialect::mysql8());
  return s;
}

std::vector<std::string> session_init(const session_options& o, sql_dialect dialect) {
  std::vector<std::string> init;
  init.push_back(std::string("SET SESSION sql_mode = '") + strict_sql_mode + "'");
  init.push_back("SET SESSION time_zone = '+00:00'");
  const auto statement = std::max(o.statement_timeout, std::chrono::milliseconds(0));
  if (dialect.mysql) {
    init.push_back("SET SESSION max_execution_time = " + std::to_string(statement.count()));
  } else {
    init.push_back("SET SESSION max_statement_time = " + fractional_seconds(statement));
  }
  init.push_back("SET SESSION innodb_lock_wait_timeout = " +
                 lock_wait(o.lock_timeout, innodb_lock_wait_max));
  init.push_back("SET SESSION lock_wait_timeout = " +
                 lock_wait(o.lock_timeout, metadata_lock_wait_max));
  if (dialect.mysql) {
    init.push_back("SET SESSION transaction_isolation = 'READ-COMMITTED'");
    return init;
  }
  init.push_back(
      "SET SESSION idle_transaction_timeout = " +
      std::to_string(std::max<int64_t>(0, whole_seconds(o.idle_in_transaction_timeout))));
  init.push_back("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
  return init;
}

}  // namespace sluice::mdb
