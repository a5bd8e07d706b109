#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "core/model/result.h"
#include "schemas/avro/avro_schema_info.h"

namespace sluice {

// Walks one record's binary encoding against its writer schema without decoding it, before
// Avro C reads it: every length, count, union branch and enum index must fit the bytes and
// the schema. Avro C 1.11 leaks the buffer it allocated for a string or bytes value whose
// length runs past the block (and allocates a hostile length before looking), so such a
// record must never reach it.
//
// Arrays and maps: each item counts as at least one byte against the bytes left (an item of
// zero bytes — a null — could otherwise make a count of 2^62 loop). Nesting deeper than
// max_depth is an error.
//
// Returns the record's length in bytes, or an invalid_avro / too_deep error naming what does
// not fit. Pure; no allocation.
result<size_t> check_avro_record(std::string_view bytes, const avro_node& schema, size_t max_depth);

}  // namespace sluice
