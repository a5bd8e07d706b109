#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "core/model/result.h"
#include "schemas/common/json_value_reader.h"
#include "schemas/common/padded_buffer.h"
#include "schemas/debezium/connect_field_schema.h"
#include "schemas/debezium/connect_schema_cache.h"

namespace sluice {

// A Debezium-style change envelope (SPEC §3): op, before, after, source and whatever else the
// record carries at its top (ts_ms, transaction; DSQL's type, chunked, chunk_id…). Debezium
// and Aurora DSQL CDC share it. Every byte of the record has been validated; views point into
// the padded message and the parser's string buffer, valid until the parser's next document.
//
// Lifecycle: one per decoder, cleared and refilled for each message (vectors keep their
// capacity). Threading: as its decoder.
struct debezium_envelope {
  // A member of the envelope, of `source` or of an image. For an object or an array, its
  // scalars are leaves[first_leaf, first_leaf + leaf_count), depth-first.
  struct field {
    std::string_view name;
    json_token token;
    uint32_t first_leaf = 0;
    uint32_t leaf_count = 0;
  };
  // A before or after image: present when the member was there and not null.
  struct row {
    bool present = false;
    std::vector<field> columns;
  };

  std::vector<field> top;     // every other envelope member: op, ts_ms, transaction…
  std::vector<field> source;  // the `source` block's members
  row before;
  row after;
  std::vector<json_leaf> leaves;
  // From a {schema, payload} wrapper: the image's columns (the schema of `after`, else of
  // `before`), or a message key's fields. Empty without a wrapper.
  std::vector<connect_field_schema> columns_schema;
  bool wrapped = false;       // the envelope came as a wrapper's payload
  bool null_payload = false;  // {schema, payload: null}: a tombstone written with schemas
  bool has_source = false;    // `source` was an object

  void clear();
  const field* top_field(std::string_view name) const { return find(top, name); }
  const field* source_field(std::string_view name) const { return find(source, name); }
  std::span<const json_leaf> leaves_of(const field& f) const {
    return std::span<const json_leaf>(leaves).subspan(f.first_leaf, f.leaf_count);
  }
  // The schema of a column; hint is the column's index, tried first (schemas list the
  // columns in the order images do).
  const connect_field_schema* schema_of(std::string_view column, size_t hint) const;

 private:
  static const field* find(const std::vector<field>& fields, std::string_view name);
};

// A {schema, payload} message whose schema block is one read before, left out of the
// document the parser is given: JsonConverter repeats the same ~3 KB block on every message
// of a table, and simdjson's stage 1 and the walk over it were most of the decode time.
struct elided_schema {
  const std::vector<connect_field_schema>* columns = nullptr;  // nullptr: nothing elided
  size_t at = 0;  // the document is the message without bytes [at, at + bytes)
  size_t bytes = 0;
};

// Reads envelopes (and Debezium message keys) from documents the parser has just opened.
// Fails on invalid JSON, a root that is not an object, before/after/source that are neither
// objects nor null, a wrapper payload that is neither, duplicate names, more image columns
// than max_columns and nesting deeper than max_depth (counted from each member). Missing
// members are not errors here: the decoder decides what it needs.
//
// With schema_wrapper (Debezium), a root holding `payload` is a {schema, payload} message:
// the envelope is the payload and the schema describes its columns. Without it (DSQL),
// `schema` and `payload` are ordinary top members.
//
// Lifecycle: one per decoder. Threading: as its decoder.
class debezium_envelope_reader {
 public:
  debezium_envelope_reader(size_t max_depth, size_t max_columns, bool schema_wrapper)
      : _values(max_depth), _max_columns(max_columns), _schema_wrapper(schema_wrapper) {}

  // When the message starts with `{"schema":` and a block read before followed by a comma
  // (JsonConverter's compact form), what to leave out: `"schema":<block>,` after the `{`.
  elided_schema known_schema(std::string_view message);

  // document: the bytes the parser was given, for error offsets (elided: what of the message
  // they leave out, see known_schema).
  std::optional<error> read(simdjson::ondemand::document& doc, std::string_view document,
                            debezium_envelope& out, const elided_schema& elided = {});

  // Reads a Debezium message key: a JSON object of key columns, or {schema, payload} whose
  // payload is that object. The columns land in out.after (present only for an object; a
  // JSON null key leaves it absent) and the key schema in out.columns_schema. A key that is
  // not an object is a wrong_type error.
  std::optional<error> read_key(simdjson::ondemand::document& doc, std::string_view document,
                                debezium_envelope& out);

 private:
  std::optional<error> read_member(std::string_view name, simdjson::ondemand::value& v,
                                   debezium_envelope& out);
  std::optional<error> read_row(std::string_view name, simdjson::ondemand::value& v,
                                debezium_envelope::row& row, debezium_envelope& out);
  std::optional<error> read_source(simdjson::ondemand::value& v, debezium_envelope& out);
  std::optional<error> read_field(std::string_view where, std::string_view name,
                                  simdjson::ondemand::value& v,
                                  std::vector<debezium_envelope::field>& into,
                                  debezium_envelope& out);
  // The wrapper's envelope schema: a block seen before (same bytes) from the cache, another
  // parsed from a copy of its bytes (the message's were consumed to get them) and cached.
  std::optional<error> read_envelope_schema(simdjson::ondemand::value& v, std::string_view document,
                                            debezium_envelope& out);
  // A struct schema: with envelope, the columns of its before/after field; else its fields.
  std::optional<error> read_schema(simdjson::ondemand::value& v, bool envelope,
                                   debezium_envelope& out);
  std::optional<error> read_field_schema(simdjson::ondemand::value& v, connect_field_schema& out,
                                         std::vector<connect_field_schema>* nested);
  std::optional<error> read_parameters(simdjson::ondemand::value& v, connect_field_schema& out);
  std::optional<error> read_schema_fields(simdjson::ondemand::value& v,
                                          std::vector<connect_field_schema>& into);
  std::optional<error> at_end(simdjson::ondemand::document& doc, std::string_view document);
  // unique: the names of the last list of this object found free of duplicates; a list
  // naming exactly those (most messages of a topic) needs no check. Updated after a check.
  std::optional<error> check_unique(const std::vector<debezium_envelope::field>& fields,
                                    std::string_view where, std::vector<std::string>& unique);

  json_value_reader _values;
  size_t _max_columns;
  bool _schema_wrapper;
  std::vector<connect_field_schema> _nested;  // scratch: one envelope field's columns
  std::vector<std::string_view> _names;       // scratch for the duplicate check
  // For check_unique(), per object: the record's top level, source, before, after, the key.
  std::vector<std::string> _unique_top, _unique_source, _unique_before, _unique_after;
  std::vector<std::string> _unique_key;
  // Envelope schema blocks by their bytes; a topic's tables each repeat one (and change it
  // when the source's table does). Blocks not seen are parsed from _schema_copy.
  connect_schema_cache _schemas{64};
  padded_buffer _schema_copy;
  simdjson::ondemand::parser _schema_parser;
};

}  // namespace sluice
