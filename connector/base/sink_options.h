#pragma once

#include <memory>

#include "connector/config/config.h"
#include "sinks/apply_options.h"
#include "sinks/retry_policy.h"
#include "sinks/session_options.h"
#include "sinks/target.h"

namespace sluice {

// The sink's options from the configuration: the only place that maps config keys onto the
// applier's and the sessions' own option structs (so sinks never see the configuration).

apply_options make_applier_options(const config& cfg);

// Every target session's settings from the section the config names (postgres.*: DSN, state
// schema, timeouts, keepalives; mariadb.*: DSN, state database, timeouts).
session_options make_session_options(const config& cfg);
// How the connector's sessions retry: outages waited out (<target>.retry.timeout, forever by
// default), statement-level errors bounded (errors.retry.max, errors.retry.backoff.max).
retry_policy make_retry_policy(const config& cfg);

// The target the configuration names (mariadb.dsn: MariaDB, else PostgreSQL), with its
// sessions' settings (sinks/target_factory.h). No I/O.
std::unique_ptr<sink::target> make_target(const config& cfg);

}  // namespace sluice
