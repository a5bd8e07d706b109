#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/model/value.h"

namespace sluice {

// What a target column's type asks of the values written to it (SPEC §3 "Avro and column
// types": values convert to the target column's real type). Decided once per column of a
// statement from the type format_type() printed, never per value.
enum class value_target : uint8_t {
  plain,        // any other type: the value's text, cast by PostgreSQL (bytes: their base64 text,
                // what such a column held before bytes were a kind of their own)
  bytea,        // bytes as bytes (bytea's hex input); any other kind as its text
  json,         // json, jsonb: the value as a JSON token (bytes: a base64 JSON string)
  array,        // "integer[]", "character varying(20)[]"…: a JSON array as an array literal
  bytea_array,  // "bytea[]": the same, its string elements base64 bytes (Debezium's JSON)
};

value_target target_of(std::string_view pg_type);

// One value as a write path sends it: NULL, text for the column type's input function, or
// bytes that the path writes in bytea's hex form (copy_stager::add_bytea, pg_array::add_bytea).
struct rendered_value {
  enum class form : uint8_t { null, text, bytea } what = form::null;
  std::string_view text;  // into the value or into the scratch buffer
};

// The value for a column of target t. scratch: a buffer reused between calls (text made for
// the value lives there until the next call with it). A JSON array that is not well-formed
// goes as its own text: PostgreSQL refuses it and the row is a dead letter, as before.
rendered_value render_value(const value& v, value_target t, std::string& scratch);

}  // namespace sluice
