#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

// What a column holds, as the stream says (SPEC §3 "Avro and column types"): portable, so
// that decoders (Debezium's Connect schema, GoldenGate's metadata, Avro) say it once and the
// sink turns it into its own type (sinks/postgres/plan/pg_type.h). Enums and bit strings
// travel as text.
enum class type_id : uint8_t {
  unknown,  // the stream does not say: the JSON kinds (or the target table) rule
  boolean,
  int16,
  int32,
  int64,
  float32,
  float64,
  decimal,  // precision/scale when known, else unconstrained
  string,   // length: maximum length in characters, or no_length
  bytes,
  uuid,
  json,
  xml,
  date,
  time,         // precision: fractional second digits, or no_precision
  timetz,       // a time of day with a UTC offset
  timestamp,    // without time zone
  timestamptz,  // an instant
  interval,
  text,  // enum, bit string and other types carried as their text
};

struct column_type {
  static constexpr int32_t no_precision = -1;
  static constexpr int32_t no_length = -1;

  type_id id = type_id::unknown;
  int32_t precision = no_precision;  // decimal: total digits; time types: fractional digits
  int32_t scale = 0;                 // decimal: digits after the point (with precision)
  int32_t length = no_length;        // string: maximum characters
  bool array = false;                // a one-dimensional array of this element type

  bool known() const { return id != type_id::unknown; }
  friend bool operator==(const column_type&, const column_type&) = default;

  // The persisted, printable form: "int32", "decimal(12,2)", "decimal", "string(80)",
  // "timestamptz(6)", "int32[]" … parse() reads it back (nothing for unknown text).
  std::string to_text() const;
  static std::optional<column_type> parse(std::string_view text);
};

// Whether every value of `from` is a value of `to` without loss (int16 -> int32, string(40)
// -> string(80), decimal(10,2) -> decimal(12,2), timestamp(3) -> timestamp(6), anything ->
// string without length). Equal types widen.
bool widens(const column_type& from, const column_type& to);

// The narrowest type holding the values of both: one of them when it widens the other, else
// the unconstrained form of the family both belong to (decimal, string) or string.
column_type wider_of(const column_type& a, const column_type& b);

// The typed columns of one table as one stream image's schema gave them. Immutable once
// built: changes share it (a schema repeats over every message of a table), so that the
// types travel with each batch without the apply lanes reading the catalog.
struct column_types {
  struct column {
    std::string name;
    column_type type;
    std::string source_type;  // the source's own spelling ("VARCHAR2(20)", "int4"), if any
  };
  std::vector<column> columns;

  const column* find(std::string_view name) const;
};
using shared_column_types = std::shared_ptr<const column_types>;

}  // namespace sluice
