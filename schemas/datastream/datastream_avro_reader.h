#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/model/column_type.h"
#include "schemas/avro/avro_binary_cursor.h"
#include "schemas/avro/avro_container.h"
#include "schemas/avro/avro_schema_info.h"
#include "schemas/avro/avro_values.h"
#include "schemas/common/decode_budget.h"
#include "schemas/common/decoder.h"
#include "schemas/datastream/datastream_event.h"

namespace sluice {

// Reads Datastream events from an Avro object container (SPEC §3, seeds 000/002) into the
// same datastream_event the JSON reader fills, so that one decoder applies the same table,
// op, key and order rules to both. The container's schema names the columns and gives
// their types (change::types).
//
//   open_record(schema, body): the same for one record in Avro binary (Confluent frames)
//   open(bytes):  header; the schema's layout from the cache (by schema text), else parsed
//                 once: avro_schema_info (logical types; Avro C checks the schema too),
//                 which top-level fields are envelope members, source_metadata, payload;
//                 the payload's column types
//   next(event):  the next record, read in one pass from its bytes (avro_value_reader over
//                 avro_binary_cursor; fields sluice does not use are walked, structure only) ->
//                 event (envelope and source_metadata members as tokens, arrays and records
//                 with their scalars as leaves; the payload as values)
//
// Views in the event point into the message bytes, the container's buffer or this reader's
// texts: valid until the next next() or open().
//
// Bounds per message: the container's blocks inflate to at most limits.max_message_bytes in
// all; what its records decode into (changes, values, walked fields) is charged to one
// decode_budget over the message's bytes and what they inflated to.
//
// Lifecycle: one per Datastream decoder; the cache holds at most max_cached_schemas
// layouts (a topic repeats one schema; a new one clears the cache when it is full).
// Threading: as its decoder.
class datastream_avro_reader {
 public:
  static constexpr size_t max_cached_schemas = 32;

  explicit datastream_avro_reader(const decode_limits& limits);

  std::optional<error> open(std::string_view bytes);
  // One record in Avro binary (a Confluent frame's body) of this writer schema: next()
  // returns it, then false.
  std::optional<error> open_record(std::string_view schema_json, std::string_view body);
  // False after the last record. Errors name the record.
  result<bool> next(datastream_event& out);
  // The payload columns' types of the open container's schema (shared by its changes).
  const shared_column_types& types() const { return _layout->types; }
  uint64_t record_index() const { return _single ? 0 : _container.record_index(); }
  // Layouts built so far (each parses a schema): the steady state adds none.
  size_t builds() const { return _builds; }

 private:
  enum class role : uint8_t { ignored, envelope, metadata, payload };
  struct layout {
    std::unique_ptr<avro_schema_info> info;
    std::vector<role> top_roles;                                 // by top-level field index
    std::vector<datastream_member> top_members;                  // for role::envelope
    std::vector<std::optional<datastream_member>> meta_members;  // by source_metadata index
    const avro_node* metadata = nullptr;                         // the source_metadata record
    const avro_node* payload = nullptr;                          // the payload record
    const avro_node* metadata_type = nullptr;  // the field's type (maybe ["null", record])
    const avro_node* payload_type = nullptr;
    shared_column_types types;
  };

  result<std::unique_ptr<layout>> build(std::string_view schema_json) const;
  std::optional<error> use_schema(std::string_view schema_json);
  std::optional<error> read_metadata(avro_binary_cursor& in, datastream_event& out);
  std::optional<error> read_payload(avro_binary_cursor& in, datastream_event& out);
  std::optional<error> read_member(avro_binary_cursor& in, const avro_node& node,
                                   std::string_view name, datastream_event::members& into,
                                   datastream_member m, datastream_event& out);
  // A value that lives until the next record (its text is the view an event member keeps).
  value& kept();
  std::string_view keep(std::string_view text);

  decode_limits _limits;
  decode_budget _budget;  // the message's: charged by _values and by this reader
  std::unordered_map<std::string, std::unique_ptr<layout>> _layouts;  // by schema text
  std::string _key;  // scratch: the lookup key, reused
  const std::pair<const std::string, std::unique_ptr<layout>>* _last = nullptr;  // last used
  layout* _layout = nullptr;
  avro_container_reader _container;
  bool _single = false;          // open_record(): one record, _body
  bool _single_pending = false;  // not yet returned by next()
  std::string_view _body;
  avro_value_reader _values;
  size_t _inflated = 0;      // the container's decompressed bytes already in the budget
  std::deque<value> _texts;  // the current record's member and leaf values, reused
  size_t _texts_used = 0;
  size_t _builds = 0;
};

}  // namespace sluice
