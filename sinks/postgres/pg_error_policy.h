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
//   40001, 40P01, 40xxx, 25006, 53300, 55P03    -> retry
//   class 22 (data), class 23 (integrity), 21000 -> reject
//   everything else                             -> fatal
pg_error_class classify_pg_error(const std::exception& e);
pg_error_class classify_pg_error(std::exception_ptr e);
// The SQLSTATE part of the policy alone.
pg_error_action classify_sqlstate(std::string_view sqlstate);

}  // namespace sluice
