#pragma once

#include <cstdint>
#include <memory>

#include "sinks/session_options.h"
#include "sinks/target.h"

namespace sluice {

// Which implementation of the seam a connector writes to. PostgreSQL is the only one today,
// selected by the `postgres.*` settings (postgres.dsn); a second target adds its kind here and
// its own folder beside sinks/postgres/.
enum class target_kind : uint8_t { postgres };

// The one file outside sinks/postgres/ that names it. No I/O.
std::unique_ptr<sink::target> make_target(target_kind kind, session_options settings);

}  // namespace sluice
