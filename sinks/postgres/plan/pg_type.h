#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/model/column_type.h"

namespace sluice {

// PostgreSQL's side of the portable column types (SPEC §3 "Avro and column types", §4
// "Schema"): the type auto.create and auto.evolve give a column the stream typed, and the
// portable reading of a target column's type, to tell a widening from a narrowing.

// The PostgreSQL type for a stream's type ("integer", "numeric(12,2)", "character
// varying(80)", "timestamp(6) with time zone", "integer[]"…); empty for unknown. Bounds
// PostgreSQL cannot declare become the unconstrained type (numeric beyond 1000 digits, a
// varchar longer than 10485760, more than 6 fractional digits of a time).
std::string pg_type_for(const column_type& type);

// The portable type of a column type as format_type() prints it; nothing for types sluice
// does not compare (domains, geometric types, ranges…).
std::optional<column_type> portable_of_pg(std::string_view format_type);

}  // namespace sluice
