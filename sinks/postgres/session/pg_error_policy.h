#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include "sinks/target_error.h"

namespace sluice {

// The verdicts are the sink's, target-neutral (sinks/target_error.h): this file decides
// them for PostgreSQL.
using pg_error_action = target_error_action;
using pg_error_class = target_error_class;

// The one place that decides what a PostgreSQL error means (STYLE.md #6). Uses libpqxx's
// exception hierarchy (except.hxx) first, then the SQLSTATE class:
//   pqxx::in_doubt_error                        -> in_doubt
//   pqxx::broken_connection, 08xxx, 57P01-57P03 -> reconnect
//   40001, 40P01, 40xxx, 25006, 53300, 55P03, 57014 -> retry
//   28000, 28P01, 3D000                         -> refused
//   class 22 (data), class 23 (integrity), 21000 -> reject
//   everything else                             -> fatal
pg_error_class classify_pg_error(const std::exception& e);
pg_error_class classify_pg_error(std::exception_ptr e);
// The SQLSTATE part of the policy alone.
pg_error_action classify_sqlstate(std::string_view sqlstate);

// Whether a connection attempt's failure (libpq's message: libpq gives no SQLSTATE before a
// session exists) is the server refusing the login — a bad password, an unknown role or
// database, no pg_hba.conf entry, a role without LOGIN or CONNECT — rather than anything else
// (unreachable, starting up, too many connections, an authentication timeout), which is
// waited out. Reads the server's English messages (lc_messages is the server's default during
// the login); a refusal in another language is waited out, never made fatal by mistake.
bool login_refused(std::string_view connect_error);

// Whether a connection attempt's failure (libpq's message) is TLS refusing the server, which
// no wait mends: its certificate does not verify against sslrootcert ("certificate verify
// failed": another CA, expired), names another host (sslmode=verify-full), the root
// certificate file is missing or unreadable, or the server offers no TLS where the DSN asks
// for it. A handshake cut short (the server going away) is not among them.
bool tls_refused(std::string_view connect_error);

// The error of a connection attempt, classified: refused (login_refused or tls_refused), or
// reconnect.
pg_error_class classify_connect_error(const std::exception& e);

}  // namespace sluice
