#pragma once

#include "connector/config/config.h"
#include "sinks/postgres/apply_options.h"
#include "sinks/postgres/session/retry_policy.h"
#include "sinks/postgres/session/session_options.h"

namespace sluice {

// The sink's options from the configuration: the only place that maps config keys onto the
// applier's and the sessions' own option structs (so sinks never see the configuration).

apply_options make_applier_options(const config& cfg);

// Every PostgreSQL session's settings (postgres.*: DSN, state schema, timeouts, keepalives).
session_options make_session_options(const config& cfg);
// How the connector's sessions retry: outages waited out (postgres.retry.timeout, forever by
// default), statement-level errors bounded (errors.retry.max, errors.retry.backoff.max).
retry_policy make_retry_policy(const config& cfg);

}  // namespace sluice
