#pragma once

#include <vector>

#include "sinks/session_options.h"
#include "sinks/target_check.h"

namespace sluice::mdb {

// `sluice check` on MariaDB (the counterpart of postgres/pg_check.h): one connection with the
// request's short timeouts and no retries, its transactions read-only (SET SESSION TRANSACTION
// READ ONLY), so that check never creates or migrates anything:
//   the server: reached and logged in (else unreachable, or config_error for a DSN that does
//     not parse, with the error's text flagged), MariaDB 10.6 or later (a MySQL server: warn,
//     sluice's MySQL 8 SQL is unit-tested, not run against a server);
//   the state database: absent (CREATE needed to make it), at this build's version, older,
//     or newer (fail); the privileges its tables need;
//   each target database the request names (any, from the global privileges, when they are
//     named by the messages): CREATE, ALTER, INDEX, SELECT, INSERT, UPDATE, DELETE, and a warn
//     for a case-insensitive (_ci) default collation;
//   local_infile (the stage is loaded with LOAD DATA LOCAL) and max_allowed_packet (warn
//     below 16 MiB: a dead letter's raw bytes travel in one packet).
// Privileges are read from information_schema (USER_PRIVILEGES, SCHEMA_PRIVILEGES) for the
// current user and its role; grants on single tables are not counted.
std::vector<sink::check_finding> check_mariadb(const session_options& options,
                                               const sink::check_request& request);

}  // namespace sluice::mdb
