#pragma once

#include <cstdint>
#include <memory>

#include "sinks/session_options.h"
#include "sinks/target.h"

namespace sluice {

// Which implementation of the seam a connector writes to: PostgreSQL (`postgres.dsn`) or
// MariaDB (`mariadb.dsn`, sinks/mariadb/), each in its own folder.
enum class target_kind : uint8_t { postgres, mariadb };

// The one file outside sinks/<target>/ that names them. No I/O.
std::unique_ptr<sink::target> make_target(target_kind kind, session_options settings);

}  // namespace sluice
