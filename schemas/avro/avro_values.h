#pragma once

#include <optional>
#include <string>

#include <avro.h>

#include "core/model/result.h"
#include "core/model/value.h"
#include "schemas/avro/avro_binary_cursor.h"
#include "schemas/avro/avro_schema_info.h"
#include "schemas/common/decode_budget.h"

namespace sluice {

// Avro values (read from Avro binary in one pass, avro_binary_cursor) as sluice values,
// guided by the writer schema as avro_schema_info read it (for the logical types):
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
// Bounded per message, not per value: every value read (32 units and its text), byte of JSON
// text written and node skipped (1) is charged to the budget its reader owns and start()s
// for each message (decode_budget.h); the first charge over the bound is a too_large error
// naming it. So an array of 0-byte items (null, an empty record, fixed(0)) whose every
// block claims the rest of the input again stops after a bounded number of items, in read()
// and skip() alike.
//
// Lifecycle: one per decoder (it keeps a JSON parser to check json strings); the budget
// outlives it. Threading: as its decoder.
class avro_value_reader {
 public:
  avro_value_reader(size_t max_depth, decode_budget& budget)
      : _max_depth(max_depth), _budget(budget) {}

  // Reads one value of this type from in (Avro binary), overwriting out (reusing its text's
  // capacity). Every length, count, branch and index is checked against the bytes left and
  // the schema. Errors name what is wrong, not where.
  std::optional<error> read(avro_binary_cursor& in, const avro_node& node, value& out);
  // Walks over one value: its structure checked (lengths, counts, branches, indexes), its
  // contents not judged.
  std::optional<error> skip(avro_binary_cursor& in, const avro_node& node);
  // The branch of a union (its index read from in); other types as they are.
  static result<const avro_node*> branch(avro_binary_cursor& in, const avro_node& node);
  // The item count of the next block of an array or map (0: the end). Unbounded: its caller
  // charges each item it reads to the budget (items of 0-byte types cost no input).
  static result<int64_t> item_block(avro_binary_cursor& in);

 private:
  std::optional<error> read(avro_binary_cursor& in, const avro_node& node, size_t depth,
                            value& out);
  std::optional<error> json(avro_binary_cursor& in, const avro_node& node, size_t depth,
                            std::string& out);
  std::optional<error> skip(avro_binary_cursor& in, const avro_node& node, size_t depth);

  size_t _max_depth;
  decode_budget& _budget;  // the message's, its reader's
  value _scratch;
};

// The Avro C error message of the last failed call, as an invalid_avro error.
error avro_failure(std::string_view what);

}  // namespace sluice
