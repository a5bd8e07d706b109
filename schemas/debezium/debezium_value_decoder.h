#pragma once

#include <string>
#include <string_view>

#include "core/model/result.h"
#include "core/model/value.h"
#include "schemas/common/decode_budget.h"
#include "schemas/debezium/debezium_envelope.h"

namespace sluice {

// A JSON token as a column value: numbers keep their exact text, strings are unescaped,
// objects and arrays stay raw JSON text (value_kind::json).
value plain_value(const json_token& token);
// The same into an existing value, reusing its text's capacity.
void assign_plain_value(value& out, const json_token& token);

// Turns the columns of a Debezium image (or message key) into sluice values (SPEC §3):
//   - the unavailable-value placeholder ("__debezium_unavailable_value", its base64 form for
//     binary columns, or an array holding it, for toasted arrays) is absent: the column is
//     left out of the image and the change is partial;
//   - with a schema (the {schema, payload} wrapper), Connect and Debezium logical types
//     become the text of their SQL values:
//       org.apache.kafka.connect.data.Decimal     base64 two's complement + scale -> "29.99"
//       io.debezium.data.VariableScaleDecimal     {scale, value(base64)}          -> "29.99"
//       io.debezium.time.Date, connect Date       days since epoch       -> "2024-01-15"
//       io.debezium.time.Timestamp (ms), MicroTimestamp (µs), NanoTimestamp (ns), connect
//       Timestamp (ms)                  -> "2024-01-15T11:30:00.123456" (no zone)
//       io.debezium.time.Time (ms), MicroTime (µs), NanoTime (ns), connect Time (ms)
//                                       -> "11:30:00.123456"
//       io.debezium.data.Json           string -> value_kind::json
//       io.debezium.data.Bits           little-endian bytes (base64) + length -> "1010"
//       io.debezium.time.MicroDuration  µs -> "1 days 02:03:04.5" (interval text)
//     ZonedTimestamp, ZonedTime and the other string logical types are already SQL text;
//     Connect bytes without a logical name are value_kind::bytes (base64 decoded once);
//     NanoTime/NanoTimestamp keep 9 fraction digits, which PostgreSQL rounds to 6.
//   - without a schema, values are kept as the JSON gave them.
//
// Lifecycle: one per decoder (it reuses a byte buffer). Threading: as its decoder.
class debezium_value_decoder {
 public:
  explicit debezium_value_decoder(std::string unavailable_value);

  // Writes the row's columns into out (over what it held: image_writer), leaving the
  // unavailable ones out. Returns whether any was left out (the image is partial). where
  // names the row in errors ("after"). Each column's value and text are charged to budget:
  // a logical type's text may be far longer than its token (a Decimal of scale 16383 from
  // one byte, a Bits of length 65536), so the message's bound is checked here, for JSON and
  // Avro alike.
  result<bool> decode_row(const debezium_envelope& e, const debezium_envelope::row& row,
                          std::string_view where, image& out, decode_budget& budget);
  // One column: an absent value for the placeholder.
  result<value> decode(const debezium_envelope& e, const debezium_envelope::field& column,
                       const connect_field_schema* schema);

 private:
  bool unavailable(const debezium_envelope& e, const debezium_envelope::field& column) const;
  result<value> logical(const debezium_envelope& e, const debezium_envelope::field& column,
                        const connect_field_schema& schema);
  result<value> decimal(std::string_view base64, std::optional<int32_t> scale);

  std::string _unavailable;
  std::string _unavailable_base64;
  std::string _bytes;  // scratch: decoded base64
};

}  // namespace sluice
