#pragma once

#include <chrono>
#include <string>

#include "sinks/connector_control.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/state_schema.h"
#include "sinks/mariadb/sql/sql_dialect.h"

namespace sluice::mdb {

// <state db>.connector_control and <state db>.members on MariaDB, keyed by connector name: the
// target state, the restart requests and the heartbeats (sinks/connector_control.h; the
// contract of postgres/state/control_store.h). A member's topics are a JSON array. Times are
// the server's (UTC_TIMESTAMP), so members' clocks never matter. Works inside the caller's
// transaction; holds no connection. Threading: none of its own.
class control_store {
 public:
  // The upserts' text follows `dialect` (state_sql.h: MySQL 8's row alias).
  control_store(const state_schema& schema, std::string connector,
                sql_dialect dialect = sql_dialect::mariadb());

  // Upserts `me`'s row (heartbeat now), deletes the connector's rows silent for `forget_after`.
  void beat(connection& conn, const sink::member_heartbeat& me,
            std::chrono::seconds forget_after) const;
  sink::control_view read(connection& conn) const;
  void set_target(connection& conn, sink::target_state s, const std::string& by) const;
  // Asks every member (only_failed: every FAILED one) to restart; the new epoch.
  int64_t request_restart(connection& conn, bool only_failed) const;
  // false when there is no such member.
  bool request_member_restart(connection& conn, const std::string& worker_id) const;
  void leave(connection& conn, const std::string& worker_id) const;

 private:
  std::string _control;
  std::string _members;
  std::string _connector;
  sql_dialect _dialect;
};

}  // namespace sluice::mdb
