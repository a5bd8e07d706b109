#pragma once

#include <string_view>

#include "connector/config/config.h"
#include "sinks/target_factory.h"

namespace sluice {

// How the connector names the target it writes to wherever a person or a dashboard reads it
// (SPEC §6b): the one place that spells "postgres" / "mariadb" for the health surface, the
// sluice_target_* metrics' label, log lines and the CLI's messages. The sinks name their own
// errors; this is the connector's side. Pure functions, any thread.

// The target the configuration names: MariaDB when mariadb.dsn is set, else PostgreSQL.
target_kind target_of(const config& cfg);

// "postgres" | "mariadb": the dependency in /readyz, /status and sluice_degraded{dependency},
// the target="" label of sluice_target_*, the log lines' component.
std::string_view target_id(target_kind kind);
// "PostgreSQL" | "MariaDB": in sentences ("MariaDB unreachable (lane-0): …").
std::string_view target_display_name(target_kind kind);

}  // namespace sluice
