#include "sinks/postgres/session/pg_error_policy.h"

#include <pqxx/except>

namespace sluice {
namespace {

std::string first_line(std::string_view text) {
  for (std::string_view prefix : {"ERROR:", "FATAL:", "PANIC:"}) {
    if (text.substr(0, prefix.size()) == prefix) {
      text.remove_prefix(prefix.size());
      break;
    }
  }
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  const size_t nl = text.find('\n');
  if (nl != std::string_view::npos) text = text.substr(0, nl);
  return std::string(text);
}

}  // namespace

pg_error_action classify_sqlstate(std::string_view s) {
  if (s.size() != 5) return pg_error_action::fatal;
  const std::string_view cls = s.substr(0, 2);
  if (cls == "08") return pg_error_action::reconnect;  // connection exception
  // admin_shutdown, crash_shutdown, cannot_connect_now: the server is restarting.
  if (s == "57P01" || s == "57P02" || s == "57P03") return pg_error_action::reconnect;
  if (cls == "40") return pg_error_action::retry;   // serialization, deadlock, rollback
  if (s == "25006") return pg_error_action::retry;  // read_only_sql_transaction (failover)
  if (s == "53100") return pg_error_action::retry;  // disk_full: waited out, DEGRADED
  if (s == "53200") return pg_error_action::retry;  // out_of_memory: waited out, DEGRADED
  if (s == "53300") return pg_error_action::retry;  // too_many_connections
  if (s == "55P03") return pg_error_action::retry;  // lock_not_available (lock_timeout)
  if (s == "57014") return pg_error_action::retry;  // query_canceled (statement_timeout)
  // The login itself was refused: a person must fix the credentials or the DSN.
  if (s == "28000" || s == "28P01" || s == "3D000") return pg_error_action::refused;
  if (cls == "22" || cls == "23") return pg_error_action::reject;
  // cardinality_violation: "MERGE command cannot affect row a second time" (or ON CONFLICT's),
  // two keys of one statement that the target's types make equal ("1" and 1 in a text key).
  // Isolation writes them in separate statements, where both apply.
  if (s == "21000") return pg_error_action::reject;
  return pg_error_action::fatal;
}

pg_error_class classify_pg_error(const std::exception& e) {
  pg_error_class out;
  out.message = first_line(e.what());
  // Most derived first: in_doubt_error and broken_connection are pqxx::failure too.
  if (dynamic_cast<const pqxx::in_doubt_error*>(&e)) {
    out.action = pg_error_action::in_doubt;
  } else if (dynamic_cast<const pqxx::broken_connection*>(&e)) {
    out.action = pg_error_action::reconnect;
  } else if (const auto* sql = dynamic_cast<const pqxx::sql_error*>(&e)) {
    out.sqlstate = sql->sqlstate();
    out.action = classify_sqlstate(out.sqlstate);
  } else if (dynamic_cast<const pqxx::transaction_rollback*>(&e)) {
    // libpqxx 6.4 raises class 40 as transaction_rollback subclasses, not as sql_error, so
    // the SQLSTATE is recovered from the class.
    if (dynamic_cast<const pqxx::serialization_failure*>(&e)) {
      out.sqlstate = "40001";
    } else if (dynamic_cast<const pqxx::deadlock_detected*>(&e)) {
      out.sqlstate = "40P01";
    } else if (dynamic_cast<const pqxx::statement_completion_unknown*>(&e)) {
      out.sqlstate = "40003";
    } else {
      out.sqlstate = "40000";
    }
    out.action = pg_error_action::retry;
  } else {
    out.action = pg_error_action::fatal;
  }
  return out;
}

bool login_refused(std::string_view message) {
  // What only a person can fix: named one by one, so that anything else the server or libpq
  // says while connecting (starting up, shutting down, too many clients or connections for a
  // role, an authentication timeout, out of memory) is waited out rather than fatal.
  for (std::string_view refusal : {
           "authentication failed",  // password, ident, peer, LDAP, RADIUS, certificate, GSSAPI
           "no pg_hba.conf entry",
           "pg_hba.conf rejects connection",
           "does not exist",  // role "x" / database "x" does not exist (28000, 3D000)
           "is not permitted to log in",
           "permission denied for database",
           "no password supplied",  // libpq itself: the DSN lacks the password the server asks
           "password is required",
       }) {
    if (message.find(refusal) != std::string_view::npos) return true;
  }
  return false;
}

bool tls_refused(std::string_view message) {
  for (std::string_view refusal : {
           "certificate verify failed",  // OpenSSL: not signed by sslrootcert's CA, expired
           "does not match host name",   // server certificate for "x" does not match host name
           "root certificate file",  // "… does not exist", could not read root certificate file
           "server does not support SSL",
       }) {
    if (message.find(refusal) != std::string_view::npos) return true;
  }
  return false;
}

pg_error_class classify_connect_error(const std::exception& e) {
  pg_error_class out = classify_pg_error(e);
  const std::string_view what = e.what();
  if (out.action == pg_error_action::reconnect && (login_refused(what) || tls_refused(what))) {
    out.action = pg_error_action::refused;
    // The server's words, after libpq's "connection to server at … failed:" prefix.
    const size_t fatal = what.find("FATAL:");
    out.message = first_line(what.substr(fatal == std::string_view::npos ? 0 : fatal));
  }
  return out;
}

pg_error_class classify_pg_error(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    return classify_pg_error(ex);
  } catch (...) {
    return {pg_error_action::fatal, {}, "unknown exception"};
  }
}

}  // namespace sluice
