#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/model/column_type.h"

namespace sluice {

// What GoldenGate's column type names mean as portable column types (SPEC §3 "Avro and column
// types"; docs/column-types.md "GoldenGate"). Pure functions.

// A type as OBJECT_METADATA gives it, case-insensitive: an Oracle (or other source) type name
// ("NUMBER(10,2)", "VARCHAR2(20 BYTE)", "TIMESTAMP(6) WITH TIME ZONE", "INTERVAL DAY(2) TO
// SECOND(6)", "LONG RAW") or one of Data Streams' primitive classifications ("number",
// "string", "boolean", "integer", "binary", "timestamp"). Numbers stay exact: NUMBER(p[,s])
// is decimal(p,s), never an integer type. Anything else, or nothing, is unknown.
column_type goldengate_column_type(std::string_view type);

// Whether a type name is only a JSON primitive classification ("number", "string",
// "boolean", "integer") or empty: then the table's JSON Schema, when it says more, rules.
bool is_json_primitive(std::string_view type);

// One property of a table's JSON Schema record (draft 4), as far as it says a column's type.
struct json_schema_property {
  std::string_view type;    // the first of `type` that is not "null"; empty when not given
  std::string_view format;  // "date-time", "date", "time", "uuid", "byte", "binary"…
  std::string_view content_encoding;  // "base64": the string carries bytes
  std::optional<int64_t> max_length;  // maxLength
};

// "integer" -> int64, "number" -> decimal, "boolean" -> boolean, "string" -> string(maxLength)
// or, by format, timestamp / date / time / uuid / bytes; "object"/"array" -> json; else
// unknown.
column_type json_schema_column_type(const json_schema_property& property);

}  // namespace sluice
