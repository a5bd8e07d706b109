#pragma once

#include "sinks/mariadb/session/mdb_connection.h"

namespace sluice::mdb {

// One transaction on a connection (pqxx::work's counterpart): BEGIN when constructed, COMMIT
// by commit(), ROLLBACK when destroyed uncommitted (its failure ignored: a connection that
// cannot roll back is broken, and the session drops it). A connection lost while COMMIT runs
// throws commit_in_doubt (mdb_error_policy.h): the outcome is unknown, the batch applier
// reads its offsets back.
//
// Lifecycle: one per attempt, on the attempt's stack. Threading: the connection's.
class transaction {
 public:
  explicit transaction(connection& conn);
  ~transaction();
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;

  void commit();
  void rollback();
  connection& conn() { return _conn; }

 private:
  connection& _conn;
  bool _open = true;
};

}  // namespace sluice::mdb
