#pragma once

#include <optional>
#include <string>

#include <avro.h>

#include "core/model/result.h"
#include "core/model/value.h"
#include "schemas/avro/avro_schema_info.h"

namespace sluice {

// Avro values (Avro C's generic value interface) as sluice values, guided by the writer
// schema as avro_schema_info read it (for the logical types):
//
//   null -> null                boolean -> boolean          int, long -> number
//   float, double -> number ("NaN", "Infinity", "-Infinity" as strings)
//   string -> string (valid UTF-8 without NUL, else an error)   enum -> its symbol
//   bytes, fixed -> bytes       decimal -> the exact decimal number text
//   date -> "YYYY-MM-DD"        time-* -> "HH:MM:SS[.f]"
//   timestamp-* -> "YYYY-MM-DDTHH:MM:SS[.f]Z"   local-timestamp-* -> the same without Z
//   uuid -> string              Datastream json -> json (checked), number -> number
//   Datastream datetime -> timestamp text, interval -> interval text
//   union -> its branch         record, array, map -> json text (bytes in base64)
//
// The texts are those the Debezium decoder writes for its logical types (connect_logical_types.h),
// so that PostgreSQL reads the same SQL values whichever format brought them.
//
// Lifecycle: one per decoder (it keeps a JSON parser to check json strings). Threading: as
// its decoder.
class avro_value_reader {
 public:
  explicit avro_value_reader(size_t max_depth) : _max_depth(max_depth) {}

  // Overwrites out (reusing its text's capacity). Errors name what is wrong, not where.
  std::optional<error> read(const avro_value_t& v, const avro_node& node, value& out);

 private:
  std::optional<error> read(const avro_value_t& v, const avro_node& node, size_t depth, value& out);
  std::optional<error> json(const avro_value_t& v, const avro_node& node, size_t depth,
                            std::string& out);
  std::optional<error> logical_record(const avro_value_t& v, const avro_node& node, value& out);

  size_t _max_depth;
  value _scratch;
};

// The Avro C error message of the last failed call, as an invalid_avro error.
error avro_failure(std::string_view what);

}  // namespace sluice
