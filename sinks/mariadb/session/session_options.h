#pragma once

#include <string>

#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/sql/sql_dialect.h"
#include "sinks/session_options.h"

namespace sluice::mdb {

// What a MariaDB session opens its connections with (SPEC §5: every connection has a connect
// timeout, a statement timeout, a lock timeout and an idle-in-transaction timeout), from the
// target-neutral sluice::session_options, whose dsn is a mariadb:// URL (mdb_dsn.h):
//   program              "sluice:<role>" (the processlist's program_name attribute)
//   connect_timeout      the DSN's connect-timeout, else the options'
//   io_timeout           round_trip_timeout: Connector/C's read and write timeouts are the
//                        round-trip deadline PostgreSQL's sessions keep with a watchdog
//   init, in order       strict sql_mode (a bad value fails instead of warning), time_zone
//                        '+00:00' (datetime(6) holds UTC), max_statement_time,
//                        innodb_lock_wait_timeout (row locks) and lock_wait_timeout (metadata
//                        locks, a year by default: a DDL queue would block a writer that long),
//                        idle_transaction_timeout; then READ COMMITTED.
// A limit of 0 means none: the server's maximum for the lock waits (MariaDB's own 0 means "do
// not wait at all"), 0 for the others.
// The init for MySQL 8 goes in init_mysql (the connection picks by the server's version):
// session_init(…, sql_dialect::mysql8()).
//
// Throws std::invalid_argument when the DSN does not parse (without the password).
connect_settings make_connect_settings(const session_options& options, const std::string& role);

// The init statements above for one server. MySQL 8's (unit-tested text, never run here):
// the same sql_mode (its flags are all MySQL's too), time zone and lock waits (same maxima);
// max_execution_time in whole milliseconds instead of max_statement_time — MySQL bounds
// SELECTs only, so writes are bounded by the client's io_timeout alone; no
// idle_transaction_timeout (MySQL has none, and wait_timeout would also close an idle
// connection outside a transaction: left out, the round-trip deadline and the server's
// innodb_lock_wait_timeout on others are what bound a stuck transaction there); READ COMMITTED
// set through transaction_isolation (MySQL 8 removed tx_isolation).
std::vector<std::string> session_init(const session_options& options, sql_dialect dialect);

// The sql_mode every sluice session runs with.
inline constexpr const char* strict_sql_mode =
    "STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ZERO_DATE,NO_ZERO_IN_DATE,"
    "NO_ENGINE_SUBSTITUTION";

}  // namespace sluice::mdb
