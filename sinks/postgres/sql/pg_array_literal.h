#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sluice {

// PostgreSQL's array literal for a JSON array, so that a change's array value (value_kind::json,
// "[1,null,\"a b\"]") reaches an ARRAY column (integer[], text[], character varying(20)[]…)
// through the column type's own input function: '{1,NULL,"a b"}'.
//   - a nested array becomes nested braces ([[1,2],[3,4]] -> {{1,2},{3,4}}); PostgreSQL itself
//     refuses ragged ones;
//   - JSON null -> NULL (unquoted: the array's SQL NULL);
//   - a string is unescaped from JSON, then double-quoted with '"' and '\' backslashed, so that
//     commas, braces, blanks and the text "NULL" stay data;
//   - numbers, true and false keep their JSON text (the element type parses them);
//   - an object is its JSON text, quoted (for json[]/jsonb[] columns).
// Appends to out and returns true; returns false (out then holds a partial literal: the caller
// discards it) when json is not one well-formed JSON array.
//
// Pure and allocation-free beyond out's growth: the writer calls it once per array value, into
// a buffer it reuses.
enum class array_elements : uint8_t {
  text,          // as above
  base64_bytes,  // bytea[]: string elements are base64 (Debezium's JSON for bytes), written
                 // as bytea's hex input ("\\x00ff"); a string that is not base64 is refused
};
bool append_pg_array_literal(std::string& out, std::string_view json,
                             array_elements elements = array_elements::text);

}  // namespace sluice
