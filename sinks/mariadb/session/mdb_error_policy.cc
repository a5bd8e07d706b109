#include "sinks/mariadb/session/mdb_error_policy.h"

#include <new>
#include <string>
#include <string_view>

namespace sluice::mdb {
namespace {

bool refused_code(unsigned code) {
  switch (code) {
    case 1044:  // access denied to the database
    case 1045:  // access denied (password)
    case 1049:  // unknown database (the DSN's)
    case 1129:  // host blocked after too many connection errors (FLUSH HOSTS)
    case 1130:  // host not allowed to connect
    case 1698:  // access denied (unix_socket / plugin)
    case 2026:  // TLS: the certificate did not verify, or the server offers no TLS
      return true;
    default:
      return false;
  }
}

std::string first_line(unsigned code, std::string_view text) {
  const size_t nl = text.find('\n');
  if (nl != std::string_view::npos) text = text.substr(0, nl);
  return std::to_string(code) + ": " + std::string(text);
}

}  // namespace

target_error_action classify_error_code(unsigned code) {
  using action = target_error_action;
  if (refused_code(code)) return action::refused;
  if (connection_lost(code)) return action::reconnect;  // 2006 2013 2055 1927 4031 2002 2003
  switch (code) {
    // The server going away or not taking this session's writes (a read-only replica after a
    // failover): a new connection, perhaps to the new primary.
    case 1053:  // server shutdown in progress
    case 1040:  // too many connections
    case 1290:  // --read-only
    case 1836:  // read-only mode
      return action::reconnect;
    case 1213:  // deadlock: the whole transaction was rolled back
    case 1205:  // lock wait timeout: the statement alone; the session rolls the rest back
    case 1969:  // max_statement_time exceeded
    case 3024:  // MySQL 8's max_execution_time exceeded (its SELECTs only; not run here)
    case 1684:  // information_schema skipped a table a concurrent DDL changes (shape reader)
    case 1021:  // disk full
    case 1114:  // table full
    case 1037:  // out of memory
    case 1041:  // out of memory (server)
      return action::retry;
    case 1062:  // duplicate key
    case 1048:  // NULL into a NOT NULL column
    case 1264:  // out of range
    case 1265:  // data truncated
    case 1292:  // incorrect datetime / truncated incorrect value
    case 1366:  // incorrect string / integer value
    case 1367:  // illegal value
    case 1406:  // data too long
    case 1411:  // incorrect value for a function
    case 1451:  // a child row references it (FK)
    case 1452:  // no parent row (FK)
    case 1690:  // BIGINT value out of range
    case 3140:  // invalid JSON (MySQL)
    case 4038:  // JSON syntax error
    case 4025:  // CHECK constraint failed
      return action::reject;
    default:
      return action::fatal;
  }
}

target_error_class classify_mdb_error(const std::exception& e) {
  target_error_class out;
  if (const auto* in_doubt = dynamic_cast<const commit_in_doubt*>(&e)) {
    out.action = target_error_action::in_doubt;
    out.sqlstate = in_doubt->sqlstate();
    out.code = std::to_string(in_doubt->code());
    out.message = first_line(in_doubt->code(), in_doubt->what());
  } else if (const auto* m = dynamic_cast<const mdb_error*>(&e)) {
    out.action = classify_error_code(m->code());
    out.sqlstate = m->sqlstate();
    out.code = std::to_string(m->code());  // sluice_target_errors_total{code}
    out.message = first_line(m->code(), m->what());
  } else if (dynamic_cast<const std::bad_alloc*>(&e)) {
    // sluice itself out of memory: waited out at the backoff's pace, DEGRADED meanwhile.
    out.action = target_error_action::retry;
    out.message = "out of memory";
  } else {
    out.action = target_error_action::fatal;
    std::string_view text = e.what();
    out.message = std::string(text.substr(0, text.find('\n')));
  }
  return out;
}

target_error_class classify_mdb_error(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    return classify_mdb_error(ex);
  } catch (...) {
    return {target_error_action::fatal, {}, "unknown exception"};
  }
}

target_error_class classify_connect_error(const std::exception& e) {
  target_error_class out = classify_mdb_error(e);
  const auto* m = dynamic_cast<const mdb_error*>(&e);
  if (m != nullptr && out.action != target_error_action::refused && m->code() >= 2000 &&
      m->code() < 3000) {
    out.action = target_error_action::reconnect;  // Connector/C could not reach or keep it
  }
  return out;
}

}  // namespace sluice::mdb
