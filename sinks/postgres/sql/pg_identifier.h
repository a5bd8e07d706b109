#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/catalog/table_router.h"

namespace sluice {

// PostgreSQL's identifier rules, the sink's alone (core routes names; the target decides what
// a name may be): at most 63 bytes (NAMEDATALEN - 1; PostgreSQL would truncate silently, so
// sluice refuses), and always double-quoted with embedded quotes doubled.
inline constexpr size_t pg_max_identifier_bytes = 63;

// "name" with embedded double quotes doubled: the only way identifiers reach SQL.
std::string quote_identifier(std::string_view name);

// Routing options with PostgreSQL's length limit.
routing_options pg_routing(routing_options routing);

}  // namespace sluice
