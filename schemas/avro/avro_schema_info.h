#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/model/result.h"

namespace sluice {

enum class avro_kind : uint8_t {
  null,
  boolean,
  int32,
  int64,
  float32,
  float64,
  bytes,
  string,
  record,
  enumeration,
  array,
  map,
  union_of,
  fixed,
};

// The logical types sluice reads (Avro 1.11 spec, plus Datastream's unified types: `json`
// and `number` strings, `time-interval-micros` longs, the `datetime` and `interval` records).
enum class avro_logical : uint8_t {
  none,
  decimal,  // bytes or fixed, with precision and scale
  date,
  time_millis,
  time_micros,
  timestamp_millis,  // an instant (UTC)
  timestamp_micros,
  local_timestamp_millis,  // a wall-clock time, no zone
  local_timestamp_micros,
  uuid,
  json,    // Datastream JSON: a string holding JSON text
  number,  // Datastream NUMBER: a string holding a decimal number
  time_interval_micros,
  datetime,  // Datastream DATETIME: record {date: date, time: time-micros}
  interval,  // Datastream INTERVAL: record {months, hours, micros}
};

// One type of a writer schema. Named types referenced again point to their definition, so
// the graph may be recursive: walkers bound their depth.
struct avro_node {
  struct field {
    std::string name;
    const avro_node* type = nullptr;
  };

  avro_kind kind = avro_kind::null;
  avro_logical logical = avro_logical::none;
  int32_t precision = 0;                   // decimal
  int32_t scale = 0;                       // decimal
  int64_t size = 0;                        // fixed: its byte count
  std::string name;                        // records, enums, fixed: the full name
  std::vector<field> fields;               // record
  std::vector<const avro_node*> branches;  // union
  const avro_node* items = nullptr;        // array items, map values
  std::vector<std::string> symbols;        // enum
  // Kafka Connect's attributes, as its AvroConverter writes them (Debezium's logical types):
  // "connect.name" (io.debezium.time.Date…), "connect.type" (int8, int16 on an int) and the
  // string members of "connect.parameters" (scale, connect.decimal.precision, length,
  // __debezium.source.column.type…). Empty when the schema has none.
  std::string connect_name;
  std::string connect_type;
  std::vector<std::pair<std::string, std::string>> connect_parameters;
  // Named types may be referred to many times: what Avro C builds for a node is the tree
  // with every reference expanded. Its node count (saturating) and depth bound that.
  uint64_t expanded = 1;
  uint32_t reach = 1;

  // For ["null", T] (either order): T; else nullptr.
  const avro_node* nullable_of() const;
  // The connect.parameters member of that name, else nothing.
  const std::string* connect_parameter(std::string_view key) const;
};

// A writer schema's JSON read with simdjson, because Avro C's schema API drops
// `logicalType` and the other attributes sluice needs (precision, scale). Only the structure
// and those attributes are kept; Avro C parses the same text for the encoding itself.
//
// Lifecycle: built once per distinct schema text and cached with it; immutable after
// parse(). Threading: immutable, shareable.
// Types in a schema once every named type's references are expanded: Avro C builds that many
// value nodes. A Datastream event of 4096 columns with a few nested types stays far below.
inline constexpr uint64_t max_expanded_nodes = 65536;

class avro_schema_info {
 public:
  // invalid_json / wrong_type naming what is wrong; nesting deeper than max_depth (also
  // through named types) or more than max_expanded_nodes types once expanded: refused.
  static result<std::unique_ptr<avro_schema_info>> parse(std::string_view json, size_t max_depth);

  const avro_node& root() const { return *_root; }

 private:
  avro_schema_info() = default;
  friend class avro_schema_parser;

  std::deque<avro_node> _nodes;  // stable addresses
  std::unordered_map<std::string, const avro_node*> _named;
  const avro_node* _root = nullptr;
};

}  // namespace sluice
