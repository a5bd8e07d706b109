#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace sluice {

// One field of a Kafka Connect struct schema, as the `schema` half of a {schema, payload}
// message describes it: enough to decode its logical type and to say its column type.
struct connect_field_schema {
  std::string_view field;            // the column name
  std::string_view type;             // Connect type: int32, int64, string, bytes, struct…
  std::string_view name;             // logical type ("io.debezium.time.Date"), empty when none
  std::optional<int32_t> scale;      // parameters.scale (org.apache.kafka.connect.data.Decimal)
  std::optional<int32_t> precision;  // parameters."connect.decimal.precision"
  std::optional<int32_t> length;     // parameters.length (io.debezium.data.Bits: bit count)
  std::string_view items_type;       // an array's element: its Connect type
  std::string_view items_name;       // and its logical type
  // With the source's column.propagate.source.type: parameters
  // "__debezium.source.column.type" ("VARCHAR", "NUMERIC", "_INT4"), ".length", ".scale".
  std::string_view source_type;
  std::optional<int32_t> source_length;
  std::optional<int32_t> source_scale;
};

}  // namespace sluice
