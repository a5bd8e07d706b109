#pragma once

#include <exception>

#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/target_error.h"

namespace sluice::mdb {

// The connection was lost while COMMIT was in flight (mdb_transaction.h): the transaction may
// or may not have committed. Classified in_doubt, so that the batch applier reads its offsets
// back before anything else (pqxx::in_doubt_error's counterpart).
class commit_in_doubt : public mdb_error {
 public:
  explicit commit_in_doubt(const mdb_error& lost)
      : mdb_error(lost.code(), lost.sqlstate(), lost.what()) {}
};

// The one place that decides what a MariaDB error means (STYLE.md #6), by MariaDB's error
// number (1xxx the server's, 2xxx Connector/C's):
//   commit_in_doubt                                      -> in_doubt
//   1213 deadlock (the server rolled the transaction back), 1205 lock wait timeout (only the
//     statement: the session rolls back and the attempt runs again), 1969 max_statement_time,
//     1021/1114 disk or table full, 1037/1041 out of memory, std::bad_alloc -> retry
//   2006/2013/2055 lost, 1927 killed, 4031 idle in transaction, 1053 server shutdown,
//     2002/2003 cannot connect, 1040 too many connections, 1290/1836 read-only -> reconnect
//   1045/1698 access denied, 1044 no access to the database, 1049 unknown database,
//     1129/1130 host blocked or not allowed, 2026 TLS -> refused
//   1062 duplicate key, 1048 NULL into NOT NULL, 1264/1690 out of range, 1265 truncated,
//     1292/1366/1367/1411 incorrect value, 1406 too long, 1451/1452 foreign key, 3140/4038
//     JSON, 4025 CHECK                                    -> reject
//   anything else                                         -> fatal
// sqlstate is the server's (HY000 for most of its numbers); the message starts with the
// number, "1213: Deadlock found when trying to get lock; …".
target_error_class classify_mdb_error(const std::exception& e);
target_error_class classify_mdb_error(std::exception_ptr e);
// The number part of the policy alone.
target_error_action classify_error_code(unsigned code);

// The error of opening a connection (connecting, or its init statements): refused as above;
// a connection-class error, any client error (2xxx) → reconnect (unreachable); anything else
// as classify_mdb_error (an init statement the server does not know is fatal).
target_error_class classify_connect_error(const std::exception& e);

}  // namespace sluice::mdb
