#pragma once

#include <chrono>
#include <set>
#include <string>

#include "connector/check/check_report.h"
#include "connector/config/config.h"

namespace sluice {

// `sluice check` on the target's side (PostgreSQL or MariaDB, whichever DSN the config gives;
// the target itself runs the probes, sink::target::check). On PostgreSQL: one connection with
// a short connect timeout and no retries, in a read-only transaction
// (default_transaction_read_only), so that check never creates or migrates anything, whatever
// the database holds:
//   the server and the role connected;
//   the state schema: absent (the first run creates it), at this build's version, older
//     (the first run migrates it), or newer (fail: upgrade sluice);
//   the privileges the configuration needs: CREATE on the database when the state schema
//     is absent; TEMP (the stage tables); on each target schema the routing names without
//     a placeholder, CREATE with auto.create (USAGE without) and INSERT, UPDATE and DELETE on
//     every table already there.
void check_target(const config& c, check_report& report, std::chrono::milliseconds timeout);

// The target schemas (MariaDB: databases) the configuration names without a placeholder,
// which check_target looks at: the schema part of table.name.format and of each
// tables.<source>.target, folded as identifier.case folds it. An unqualified name's schema is
// "public" on PostgreSQL and the DSN's database on MariaDB (the path of its mariadb:// URL).
// A schema part holding a placeholder depends on the messages: `dynamic` is set instead.
std::set<std::string> static_target_schemas(const config& c, bool& dynamic);

}  // namespace sluice
