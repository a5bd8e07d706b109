#pragma once

#include <string>

#include "sinks/plan/table_planner.h"

namespace sluice {

// PostgreSQL's rules for the planner: 63-byte identifiers, and the targets no message may
// reach — sluice's state schema, the server's catalogs (pg_catalog, pg_toast, pg_temp_*: every
// schema starting "pg_" is the server's) and information_schema. Names are compared exactly:
// they are always quoted, so "PG_catalog" is an ordinary schema.
target_rules pg_target_rules(std::string state_schema);

}  // namespace sluice
