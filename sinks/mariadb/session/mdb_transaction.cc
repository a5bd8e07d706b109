#include "sinks/mariadb/session/mdb_transaction.h"

#include "sinks/mariadb/session/mdb_error_policy.h"

namespace sluice::mdb {

transaction::transaction(connection& conn) : _conn(conn) {
  _conn.exec("BEGIN");
}

transaction::~transaction() {
  if (!_open || _conn.broken()) return;
  try {
    _conn.exec("ROLLBACK");
  } catch (...) {  // NOLINT(bugprone-empty-catch): the session drops a broken connection
  }
}

void transaction::commit() {
  _open = false;
  try {
    _conn.exec("COMMIT");
  } catch (const mdb_error& e) {
    if (_conn.broken() || connection_lost(e.code())) throw commit_in_doubt(e);
    throw;
  }
}

void transaction::rollback() {
  _open = false;
  _conn.exec("ROLLBACK");
}

}  // namespace sluice::mdb
