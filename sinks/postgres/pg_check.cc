#include "sinks/postgres/pg_check.h"

#include <algorithm>
#include <optional>
#include <string>

#include <pqxx/pqxx>

#include "sinks/postgres/session/session_options.h"
#include "sinks/postgres/session/state_schema.h"

namespace sluice {
namespace {

using status = sink::check_status;

// The findings in the order they are made.
struct findings {
  std::vector<sink::check_finding> list;
  void add(std::string area, std::string subject, status result, std::string detail = {},
           bool error_text = false) {
    list.push_back({std::move(area), std::move(subject), result, std::move(detail), error_text});
  }
};

bool yes(pqxx::read_transaction& tx, const std::string& sql, const std::string& arg) {
  return tx.exec_params1(sql, arg)[0].as<bool>();
}

void check_state_schema(const std::string& schema, pqxx::read_transaction& tx, findings& report) {
  const int current = state_schema::current_version;
  const bool may_create =
      tx.exec1("SELECT has_database_privilege(current_database(), 'CREATE')")[0].as<bool>();
  if (tx.exec_params1("SELECT to_regnamespace(quote_ident($1)) IS NULL", schema)[0].as<bool>()) {
    report.add("state", "schema " + schema, may_create ? status::warn : status::fail,
               may_create
                   ? "absent: the first run creates it (version " + std::to_string(current) + ")"
                   : "absent, and this role may not CREATE in the database to create it");
    return;
  }
  if (!yes(tx, "SELECT has_schema_privilege(quote_ident($1), 'USAGE')", schema)) {
    report.add("state", "schema " + schema, status::fail,
               "exists, and this role has no USAGE on it (sluice keeps its offsets there)");
    return;
  }
  const std::string versions = state_schema(schema).table("schema_version");
  if (tx.exec_params1("SELECT to_regclass($1) IS NULL", versions)[0].as<bool>()) {
    report.add("state", "schema " + schema, status::warn,
               "exists without sluice's tables: the first run creates them");
    return;
  }
  const int found = tx.exec1("SELECT coalesce(max(version), 0) FROM " + versions)[0].as<int>();
  if (found == current) {
    report.add("state", "schema " + schema, status::ok, "at version " + std::to_string(found));
  } else if (found < current) {
    report.add("state", "schema " + schema, status::warn,
               "at version " + std::to_string(found) + ", needs migration to " +
                   std::to_string(current) + " (the first run migrates it)");
  } else {
    report.add("state", "schema " + schema, status::fail,
               "at version " + std::to_string(found) + ", newer than this sluice (" +
                   std::to_string(current) + "): upgrade sluice");
  }
}

void check_privileges(const sink::check_request& c, pqxx::read_transaction& tx, findings& report) {
  const bool temp =
      tx.exec1("SELECT has_database_privilege(current_database(), 'TEMP')")[0].as<bool>();
  report.add("privileges", "TEMP on the database", temp ? status::ok : status::fail,
             temp ? "" : "the batch stage tables are temporary tables");

  for (const std::string& schema : c.target_schemas) {
    const std::string subject = "target schema " + schema;
    if (yes(tx, "SELECT to_regnamespace(quote_ident($1)) IS NULL", schema)) {
      const bool may =
          tx.exec1("SELECT has_database_privilege(current_database(), 'CREATE')")[0].as<bool>();
      if (!c.auto_create) {
        report.add("privileges", subject, status::fail, "absent, and auto.create is off");
      } else {
        report.add("privileges", subject, may ? status::ok : status::fail,
                   may ? "absent: auto.create creates it"
                       : "absent, and this role may not CREATE in the database");
      }
      continue;
    }
    const char* needed = c.auto_create ? "CREATE" : "USAGE";
    const bool has = yes(
        tx, std::string("SELECT has_schema_privilege(quote_ident($1), '") + needed + "')", schema);
    // Every existing table must take the batch's writes (each privilege on its own:
    // has_table_privilege with a list is true when any one of them is held).
    const pqxx::result missing = tx.exec_params(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT ("
        "has_table_privilege(c.oid, 'INSERT') AND has_table_privilege(c.oid, 'UPDATE') AND "
        "has_table_privilege(c.oid, 'DELETE') AND has_table_privilege(c.oid, 'SELECT')) "
        "ORDER BY 1 LIMIT 11",
        schema);
    std::string detail = has ? std::string(needed) + " held" : std::string("no ") + needed;
    if (!missing.empty()) {
      detail += "; no SELECT/INSERT/UPDATE/DELETE on ";
      for (pqxx::result::size_type i = 0; i < missing.size() && i < 10; ++i)
        detail += (i ? ", " : "") + missing[i][0].as<std::string>();
      if (missing.size() > 10) detail += ", …";
    }
    report.add("privileges", subject, has && missing.empty() ? status::ok : status::fail, detail);
  }
  if (c.dynamic_schemas) {
    report.add("privileges", "target schemas from ${...}", status::warn,
               "named by the messages: their privileges are met at run time");
  }
}

}  // namespace

std::vector<sink::check_finding> check_postgres(session_options options,
                                                const sink::check_request& request) {
  findings report;
  options.connect_timeout = std::min(options.connect_timeout, request.timeout);
  const std::string& dsn = request.shown_target;
  std::optional<pqxx::connection> conn;
  try {
    conn.emplace(make_session_conninfo(options, "check").conninfo);
  } catch (const std::invalid_argument& e) {
    report.add("postgres", dsn, status::config_error, e.what(), true);
    return std::move(report.list);
  } catch (const std::exception& e) {
    report.add("postgres", dsn, status::unreachable, e.what(), true);
    return std::move(report.list);
  }
  try {
    // Nothing check runs may write, whatever a later change to it does.
    conn->set_variable("default_transaction_read_only", "on");
    pqxx::read_transaction tx(*conn);
    const pqxx::row who =
        tx.exec1("SELECT current_user, current_database(), current_setting('server_version')");
    report.add("postgres", dsn, status::ok,
               "PostgreSQL " + who[2].as<std::string>() + ", role " + who[0].as<std::string>() +
                   ", database " + who[1].as<std::string>());
    check_state_schema(options.state_schema, tx, report);
    check_privileges(request, tx, report);
  } catch (const std::exception& e) {
    report.add("postgres", "checks", status::fail, e.what(), true);
  }
  return std::move(report.list);
}

}  // namespace sluice
