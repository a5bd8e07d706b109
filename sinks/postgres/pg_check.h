#pragma once

#include <vector>

#include "sinks/session_options.h"
#include "sinks/target_check.h"

namespace sluice {

// `sluice check` on PostgreSQL: one connection with the request's short connect timeout and
// no retries, in a read-only transaction (default_transaction_read_only), so that check never
// creates or migrates anything, whatever the database holds:
//   the server and the role connected;
//   the state schema: absent (the first run creates it), at this build's version, older
//     (the first run migrates it), or newer (fail: upgrade sluice);
//   the privileges the configuration needs: CREATE on the database when the state schema
//     is absent; TEMP (the stage tables); on each target schema the request names, CREATE
//     with auto.create (USAGE without) and INSERT, UPDATE and DELETE on every table already
//     there.
std::vector<sink::check_finding> check_postgres(session_options options,
                                                const sink::check_request& request);

}  // namespace sluice
