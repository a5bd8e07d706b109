#include "sinks/mariadb/mdb_check.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/session_options.h"
#include "sinks/mariadb/session/state_schema.h"

namespace sluice::mdb {
namespace {

using status = sink::check_status;

constexpr uint64_t packet_floor = 16ull * 1024 * 1024;

struct findings {
  std::vector<sink::check_finding> list;
  void add(std::string area, std::string subject, status result, std::string detail = {},
           bool error_text = false) {
    list.push_back({std::move(area), std::move(subject), result, std::move(detail), error_text});
  }
};

// What each kind of database needs.
// CREATE TEMPORARY TABLES: each writer stages its rows in a session temporary table.
const std::vector<std::string> target_privileges = {
    "CREATE", "ALTER", "INDEX", "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE TEMPORARY TABLES"};
const std::vector<std::string>& state_privileges = target_privileges;

// The privileges the session holds on `database` (empty: globally), from information_schema.
class privileges {
 public:
  explicit privileges(connection& conn) : _conn(conn) {
    const result who = conn.query("SELECT CURRENT_USER(), CURRENT_ROLE()");
    const std::string user = who.at(0, 0).value_or("");
    const size_t at = user.rfind('@');
    _grantees.push_back("'" + user.substr(0, at) + "'@'" +
                        (at == std::string::npos ? "" : user.substr(at + 1)) + "'");
    if (who.at(0, 1)) _grantees.push_back("'" + *who.at(0, 1) + "'");
    _grantees.resize(2, _grantees.front());
  }

  std::set<std::string> on(const std::string& database) {
    std::set<std::string> held;
    const std::vector<param> global = {param::text(_grantees[0]), param::text(_grantees[1])};
    for (const auto& row :
         _conn
             .query("SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES "
                    "WHERE GRANTEE IN (?, ?)",
                    global)
             .rows)
      held.insert(row[0].value_or(""));
    if (!database.empty()) {
      // A grant's database may be a LIKE pattern (`db\_%`): the database matches it.
      const std::vector<param> scoped = {param::text(_grantees[0]), param::text(_grantees[1]),
                                         param::text(database)};
      for (const auto& row :
           _conn
               .query("SELECT PRIVILEGE_TYPE FROM information_schema.SCHEMA_PRIVILEGES "
                      "WHERE GRANTEE IN (?, ?) AND ? LIKE TABLE_SCHEMA",
                      scoped)
               .rows)
        held.insert(row[0].value_or(""));
    }
    return held;
  }

 private:
  connection& _conn;
  std::vector<std::string> _grantees;
};

std::string missing(const std::set<std::string>& held, const std::vector<std::string>& needed) {
  std::string out;
  for (const std::string& p : needed) {
    if (held.contains(p)) continue;
    out += (out.empty() ? "" : ", ") + p;
  }
  return out;
}

std::optional<std::string> default_collation(connection& conn, const std::string& database) {
  const result r = conn.query(
      "SELECT DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
      std::vector{param::text(database)});
  if (r.empty()) return std::nullopt;
  return r.at(0, 0).value_or("");
}

void check_server(connection& conn, const std::string& dsn, findings& report) {
  const result who = conn.query("SELECT VERSION(), CURRENT_USER(), DATABASE()");
  const std::string version = who.at(0, 0).value_or("");
  const std::string detail = version + ", user " + who.at(0, 1).value_or("") + ", database " +
                             who.at(0, 2).value_or("(none)");
  if (version.find("MariaDB") == std::string::npos) {
    report.add(
        "mariadb", dsn, status::warn,
        "MySQL " + detail + ": sluice's MySQL 8 SQL is unit-tested, not run against a server");
  } else if (conn.server_version() < 100600) {
    report.add("mariadb", dsn, status::fail, "MariaDB " + detail + ": sluice needs 10.6 or later");
  } else {
    report.add("mariadb", dsn, status::ok, "MariaDB " + detail);
  }
}

void check_state(connection& conn, privileges& rights, const std::string& database,
                 findings& report) {
  const std::string subject = "database " + database;
  const int current = state_schema::current_version;
  if (!default_collation(conn, database)) {
    const bool may = rights.on(database).contains("CREATE");
    report.add("state", subject, may ? status::ok : status::fail,
               may ? "absent: the first run creates it (version " + std::to_string(current) + ")"
                   : "absent, and this user may not CREATE it");
    return;
  }
  const std::string lacking = missing(rights.on(database), state_privileges);
  if (!lacking.empty()) {
    report.add("state", subject, status::fail, "exists, and this user lacks " + lacking);
    return;
  }
  const result has_versions = conn.query(
      "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = "
      "'schema_version'",
      std::vector{param::text(database)});
  if (has_versions.empty()) {
    report.add("state", subject, status::ok,
               "exists without sluice's tables: the first run "
               "creates them");
    return;
  }
  const int found = std::stoi(conn.query("SELECT coalesce(max(version), 0) FROM " +
                                         state_schema(database).table("schema_version"))
                                  .at(0, 0)
                                  .value_or("0"));
  if (found == current) {
    report.add("state", subject, status::ok, "at version " + std::to_string(found));
  } else if (found < current) {
    report.add("state", subject, status::warn,
               "at version " + std::to_string(found) + ", needs migration to " +
                   std::to_string(current) + " (the first run migrates it)");
  } else {
    report.add("state", subject, status::fail,
               "at version " + std::to_string(found) + ", newer than this sluice (" +
                   std::to_string(current) + "): upgrade sluice");
  }
}

void check_targets(connection& conn, privileges& rights, const sink::check_request& c,
                   findings& report) {
  for (const std::string& database : c.target_schemas) {
    const std::string subject = "target database " + database;
    const std::optional<std::string> collation = default_collation(conn, database);
    const std::set<std::string> held = rights.on(database);
    if (!collation) {
      if (!c.auto_create) {
        report.add("privileges", subject, status::fail, "absent, and auto.create is off");
      } else {
        const bool may = held.contains("CREATE");
        report.add(
            "privileges", subject, may ? status::ok : status::fail,
            may ? "absent: auto.create creates it" : "absent, and this user may not CREATE it");
      }
      continue;
    }
    const std::string lacking = missing(held, target_privileges);
    report.add("privileges", subject, lacking.empty() ? status::ok : status::fail,
               lacking.empty() ? "CREATE, ALTER, INDEX, SELECT, INSERT, UPDATE, DELETE, CREATE "
                                 "TEMPORARY TABLES held"
                               : "lacks " + lacking);
    if (collation->ends_with("_ci")) {
      report.add("collation", subject, status::warn,
                 "default collation " + *collation +
                     " is case-insensitive: the text columns sluice creates use "
                     "utf8mb4_nopad_bin anyway, but an existing table whose key has a _ci "
                     "collation is refused (keys 'a' and 'A' would be one row)");
    } else {
      report.add("collation", subject, status::ok, "default collation " + *collation);
    }
  }
  if (c.dynamic_schemas) {
    const std::string lacking = missing(rights.on(""), target_privileges);
    report.add("privileges", "target databases from ${...}",
               lacking.empty() ? status::ok : status::warn,
               lacking.empty() ? "held on every database"
                               : "named by the messages, and not held on every database (" +
                                     lacking + "): met at run time");
  }
}

void check_limits(connection& conn, findings& report) {
  // local_infile is not looked at: rows are staged by array binding, never LOAD DATA (which
  // turns bad values into warnings even in strict mode).
  const result r = conn.query("SELECT @@max_allowed_packet");
  const uint64_t packet = std::stoull(r.at(0, 0).value_or("0"));
  const std::string mib = std::to_string(packet / (1024 * 1024)) + " MiB";
  report.add("server", "max_allowed_packet", packet >= packet_floor ? status::ok : status::warn,
             packet >= packet_floor
                 ? mib
                 : mib + ": below 16 MiB, a large dead letter or row may not fit in one packet");
}

}  // namespace

std::vector<sink::check_finding> check_mariadb(const session_options& options,
                                               const sink::check_request& request) {
  findings report;
  const std::string& dsn = request.shown_target;
  std::unique_ptr<connection> conn;
  try {
    connect_settings s = make_connect_settings(options, "check");
    s.connect_timeout = std::min(s.connect_timeout, request.timeout);
    s.target.connect_timeout = std::chrono::seconds(0);
    s.io_timeout = request.timeout;
    // Nothing check runs may write, whatever a later change to it does.
    s.init.push_back("SET SESSION TRANSACTION READ ONLY");
    conn = std::make_unique<connection>(s);
  } catch (const std::invalid_argument& e) {
    report.add("mariadb", dsn, status::config_error, e.what(), true);
    return std::move(report.list);
  } catch (const std::exception& e) {
    report.add("mariadb", dsn, status::unreachable, e.what(), true);
    return std::move(report.list);
  }
  try {
    check_server(*conn, dsn, report);
    privileges rights(*conn);
    check_state(*conn, rights, options.state_schema, report);
    check_targets(*conn, rights, request, report);
    check_limits(*conn, report);
  } catch (const std::exception& e) {
    report.add("mariadb", "checks", status::fail, e.what(), true);
  }
  return std::move(report.list);
}

}  // namespace sluice::mdb
