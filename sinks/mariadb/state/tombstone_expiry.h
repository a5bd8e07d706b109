#pragma once

#include <chrono>
#include <string>

#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/state_schema.h"
#include "sinks/state_janitor.h"

namespace sluice::mdb {

// Deletes tombstones older than tombstone.retention (SPEC §4) on MariaDB, the rule of
// postgres/state_janitor.h: a tombstone stays while a stored dead letter of its table, or one
// naming no table (a decode letter may hold any table's change), was written less than the
// retention after it — `dead-letters replay` of that letter must still meet it (issue 27).
// Times are the server's (UTC_TIMESTAMP, the state tables' datetimes are UTC).
//
// The statements of the expiry role (sinks/state_janitor.h), in the caller's short
// transaction of its own (never a batch's). Holds no connection. Threading: none of its own.
class tombstone_expiry {
 public:
  explicit tombstone_expiry(const state_schema& schema);

  sink::tombstone_expiry expire(connection& conn, std::chrono::seconds retention) const;

 private:
  std::string _tombstones;
  std::string _letters;
};

}  // namespace sluice::mdb
