#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "schemas/avro/avro_binary_cursor.h"
#include "schemas/avro/avro_schema_info.h"
#include "schemas/common/decode_budget.h"
#include "schemas/common/decoder.h"
#include "schemas/debezium/debezium_envelope.h"
#include "schemas/registry/schema_source.h"

namespace sluice {

// Reads Debezium change events and message keys written by Confluent's AvroConverter (the
// body of a Confluent frame: Avro binary of the registered writer schema) into the same
// debezium_envelope the JSON reader fills, as the JsonConverter would have written them, so
// that one decoder applies the same op, table, order, key and value rules to both (SPEC §3):
//
//   int, long            -> number          float, double -> number ("NaN"… as strings)
//   string, enum         -> string          bytes, fixed  -> string of base64 (Connect bytes)
//   boolean, null        -> themselves      union         -> its branch
//   record, map, array   -> JSON text, their scalars as leaves (depth first)
//
// Column schemas come from the writer schema (the record of `after`, else of `before`; for a
// key its fields): the Connect type from the Avro type (connect.type int8/int16 on an int),
// the logical name from connect.name, scale/precision/length and the propagated source
// column type from connect.parameters. Logical types are left to debezium_value_decoder,
// which reads the tokens exactly as it reads JSON.
//
//   read(schema, body, out)      a value: a record with op, source, before, after…
//   read_key(schema, body, out)  a key: a record of key columns (into out.after)
//
// The body is read in one pass straight into tokens (avro_binary_cursor, every length, count,
// branch and index checked against the bytes left and the schema): Avro C's generic values
// took two thirds of the decode time (docs/avro.md, "Measured") for a value that is only
// walked once. Avro C still parses and checks each schema. The body must be exactly one
// record; bytes left over are an error. Views in out point into the message, this reader's
// texts and the schemas' nodes: valid until the next read of the same kind (a value's views
// survive a key's read) and while the message lives.
//
// Bounded per body, not per value: each token, leaf, item and field name is charged to one
// decode_budget started over the body's bytes, so an array of 0-byte items (null, an empty
// record) that each block claims again stops at the bound (too_large, naming it).
//
// Lifecycle: one per Debezium decoder; parsed schemas are cached by id (max_cached_schemas,
// cleared when full). Threading: as its decoder.
class debezium_avro_reader {
 public:
  static constexpr size_t max_cached_schemas = 64;

  explicit debezium_avro_reader(const decode_limits& limits);
  ~debezium_avro_reader();
  debezium_avro_reader(const debezium_avro_reader&) = delete;
  debezium_avro_reader& operator=(const debezium_avro_reader&) = delete;

  std::optional<error> read(const std::shared_ptr<const registered_schema>& schema,
                            std::string_view body, debezium_envelope& out);
  std::optional<error> read_key(const std::shared_ptr<const registered_schema>& schema,
                                std::string_view body, debezium_envelope& out);
  // Schemas parsed so far: the steady state adds none.
  size_t builds() const { return _builds; }

 private:
  enum class role : uint8_t { top, source, before, after };
  struct layout {
    std::shared_ptr<const registered_schema> schema;
    std::unique_ptr<avro_schema_info> info;
    std::vector<role> roles;  // by top-level field (values only)
    std::vector<connect_field_schema> columns;
  };
  struct texts {
    std::deque<std::string> kept;
    size_t used = 0;
  };

  result<layout*> layout_for(const std::shared_ptr<const registered_schema>& schema, bool key);
  result<std::unique_ptr<layout>> build(const std::shared_ptr<const registered_schema>& schema,
                                        bool key) const;
  // The branch of a union (its index read from in); other types as they are.
  static result<const avro_node*> branch(avro_binary_cursor& in, const avro_node* node);
  std::optional<error> read_fields(avro_binary_cursor& in, const avro_node& node,
                                   std::vector<debezium_envelope::field>& into,
                                   debezium_envelope& out, size_t depth);
  std::optional<error> read_row(avro_binary_cursor& in, const avro_node& type,
                                debezium_envelope::row& row, debezium_envelope& out);
  // One value as a token; records, maps and arrays also as leaves. depth: its nesting.
  std::optional<error> token(avro_binary_cursor& in, const avro_node& node, json_token& out,
                             debezium_envelope& e, size_t depth);
  std::optional<error> scalar(avro_binary_cursor& in, const avro_node& node, json_token& out);
  std::optional<error> json(avro_binary_cursor& in, const avro_node& node, size_t depth,
                            std::string& out, std::string_view name, debezium_envelope& e);
  std::string& fresh();
  std::string_view keep(std::string_view text);

  decode_limits _limits;
  std::unordered_map<int32_t, std::unique_ptr<layout>> _values;  // by schema id
  std::unordered_map<int32_t, std::unique_ptr<layout>> _keys;
  texts _value_texts;
  texts _key_texts;
  texts* _texts = &_value_texts;  // those of the read under way
  decode_budget _budget;          // of the read under way
  std::string _scratch;
  size_t _builds = 0;
};

}  // namespace sluice
