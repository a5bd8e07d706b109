#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

namespace sluice {

// What the applier does about a failed PostgreSQL transaction (SPEC §4 "Errors").
enum class pg_error_action : uint8_t {
  retry,      // transient (serialization failure, deadlock, read-only standby): run it again
  reconnect,  // the connection is gone or going: open a new one, then run it again
  in_doubt,   // the connection broke during COMMIT: read the offsets back to learn the outcome
  reject,     // the database refused a value or a constraint: isolate the change, dead-letter it
  refused,    // the server was reached and refused the login (28000, 28P01, 3D000), or its
              // TLS certificate was not accepted: only a person can fix that; stop, saying why
  fatal,      // anything else: a bug, a permission, a missing object; stop
};

const char* to_string(pg_error_action action);

struct pg_error_class {
  pg_error_action action = pg_error_action::fatal;
  std::string sqlstate;  // empty when the error carried none
  std::string message;   // the error text, first line, without libpq's "ERROR:" prefix
};

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
