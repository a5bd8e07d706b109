#include "connector/check/postgres_check.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include <pqxx/pqxx>

#include "connector/base/sink_options.h"
#include "connector/config/redact.h"
#include "core/catalog/table_router.h"
#include "sinks/postgres/session/session_options.h"
#include "sinks/postgres/session/state_schema.h"

namespace sluice {
namespace {

using status = check_report::status;

// The target schemas the configuration names without a placeholder: the schema part of
// table.name.format ("public" when it has none) and of each tables.<source>.target. A
// schema part holding a placeholder depends on the messages: nullopt in `dynamic`.
std::set<std::string> static_target_schemas(const config& c, bool& dynamic) {
  std::set<std::string> out;
  const auto add = [&](const std::string& qualified) {
    const size_t dot = qualified.find('.');
    if (dot == std::string::npos) {
      out.insert("public");
      return;
    }
    const std::string schema = qualified.substr(0, dot);
    if (schema.find("${") != std::string::npos) {
      dynamic = true;
    } else {
      out.insert(c.identifier_case == letter_case::lower ? lower_ascii(schema) : schema);
    }
  };
  add(c.table_name_format);
  for (const auto& [source, table] : c.tables)
    if (!table.target.empty()) add(table.target);
  return out;
}

bool yes(pqxx::read_transaction& tx, const std::string& sql, const std::string& arg) {
  return tx.exec_params1(sql, arg)[0].as<bool>();
}

void check_state_schema(const config& c, pqxx::read_transaction& tx, check_report& report) {
  const std::string& schema = c.postgres.state_schema;
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

void check_privileges(const config& c, pqxx::read_transaction& tx, check_report& report) {
  const bool temp =
      tx.exec1("SELECT has_database_privilege(current_database(), 'TEMP')")[0].as<bool>();
  report.add("privileges", "TEMP on the database", temp ? status::ok : status::fail,
             temp ? "" : "the batch stage tables are temporary tables");

  bool dynamic = false;
  for (const std::string& schema : static_target_schemas(c, dynamic)) {
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
  if (dynamic) {
    report.add("privileges", "target schemas from ${...}", status::warn,
               "named by the messages: their privileges are met at run time");
  }
}

}  // namespace

void check_postgres(const config& c, check_report& report, std::chrono::milliseconds timeout) {
  session_options options = make_session_options(c);
  options.connect_timeout = std::min(options.connect_timeout, timeout);
  const std::string dsn = redact_secrets(redact(c.postgres.dsn), c.secrets);
  std::optional<pqxx::connection> conn;
  try {
    conn.emplace(make_session_conninfo(options, "check").conninfo);
  } catch (const std::invalid_argument& e) {
    report.add("postgres", dsn, status::config_error, redact_secrets(e.what(), c.secrets));
    return;
  } catch (const std::exception& e) {
    report.add("postgres", dsn, status::unreachable, redact_secrets(redact(e.what()), c.secrets));
    return;
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
    check_state_schema(c, tx, report);
    check_privileges(c, tx, report);
  } catch (const std::exception& e) {
    report.add("postgres", "checks", status::fail, redact_secrets(redact(e.what()), c.secrets));
  }
}

}  // namespace sluice
