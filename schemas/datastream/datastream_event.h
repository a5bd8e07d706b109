#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "core/model/result.h"
#include "core/model/value.h"
#include "schemas/common/json_value_reader.h"

namespace sluice {

// One Datastream event as read from its JSON (SPEC §3): the generic metadata, the
// source_metadata members and the payload. Every byte of the event has been validated.
// Views point into the padded message and the parser's string buffer: valid until the next
// parse. Lifecycle: one per decoder, cleared and refilled for each message (its vectors keep
// their capacity). Threading: as its decoder.
struct datastream_event {
  // A member of the envelope or of source_metadata. For an object or an array, its scalars
  // are leaves[first_leaf, first_leaf + leaf_count), depth-first.
  struct field {
    std::string_view name;
    json_token token;
    uint32_t first_leaf = 0;
    uint32_t leaf_count = 0;
  };

  std::vector<field> envelope;  // generic metadata: read_method, source_timestamp, sort_keys…
  std::vector<field> metadata;  // source_metadata
  std::vector<json_leaf> leaves;
  image payload;  // column name -> value, as the source gave them; written in place
  bool has_metadata = false;
  bool has_payload = false;

  void clear();
  const field* top(std::string_view name) const { return find(envelope, name); }
  const field* meta(std::string_view name) const { return find(metadata, name); }
  std::span<const json_leaf> leaves_of(const field& f) const {
    return std::span<const json_leaf>(leaves).subspan(f.first_leaf, f.leaf_count);
  }

 private:
  static const field* find(const std::vector<field>& fields, std::string_view name);
};

// Reads events from documents the parser has just opened. Fails on invalid JSON, a root that
// is not an object, a payload or source_metadata that is not an object, duplicate names, more
// payload columns than max_columns and nesting deeper than max_depth. Missing members are not
// errors here: the decoder decides what it needs.
//
// Lifecycle: one per decoder. Threading: as its decoder.
class datastream_event_reader {
 public:
  datastream_event_reader(size_t max_depth, size_t max_columns)
      : _values(max_depth), _max_columns(max_columns) {}

  // document: the bytes the parser was given, for error offsets.
  std::optional<error> read(simdjson::ondemand::document& doc, std::string_view document,
                            datastream_event& out);

 private:
  std::optional<error> read_payload(simdjson::ondemand::value v, datastream_event& out);
  std::optional<error> read_fields(simdjson::ondemand::value v, datastream_event& out);
  std::optional<error> read_field(std::string_view prefix, std::string_view name,
                                  simdjson::ondemand::value v,
                                  std::vector<datastream_event::field>& into,
                                  datastream_event& out);
  std::optional<error> check_unique(std::string_view where);

  json_value_reader _values;
  size_t _max_columns;
  std::vector<std::string_view> _names;  // scratch for the duplicate check
};

}  // namespace sluice
