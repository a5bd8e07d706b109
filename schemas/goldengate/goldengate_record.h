#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "core/model/result.h"
#include "core/model/value.h"
#include "schemas/common/json_value_reader.h"
#include "schemas/goldengate/goldengate_names.h"

namespace sluice {

// One column of an OBJECT_METADATA record's `columns` object.
struct goldengate_column_meta {
  std::string_view name;
  std::string_view type;         // "number", "string"… or a source type; empty when not given
  std::optional<bool> nullable;  // `null`
  std::optional<bool> key;       // `key`
};

// One GoldenGate Data Streams record as read from its JSON (SPEC §3), whatever its kind: the
// configurable fields by canonical slot, the before/after images, OBJECT_METADATA columns,
// the DDL member and every other top-level member. Every byte has been validated. Views point
// into the padded message and the parser's string buffer: valid until the next parse.
// Lifecycle: one per decoder, cleared and refilled for each message (its vectors keep their
// capacity). Threading: as its decoder.
struct goldengate_record {
  // A configurable field. For before/after sent as objects, token.kind is object and the
  // columns are in `before` / `after`.
  struct slot {
    bool present = false;
    json_token token;

    // Present and not JSON null.
    bool given() const { return present && token.kind != json_kind::null; }
  };
  // Any other top-level member; for an object or array, its scalars are
  // leaves[first_leaf, first_leaf + leaf_count), depth-first.
  struct member {
    std::string_view name;
    json_token token;
    uint32_t first_leaf = 0;
    uint32_t leaf_count = 0;
  };

  std::array<slot, goldengate_field_count> fields;
  image before;
  image after;
  bool has_columns = false;  // `columns` was an object
  std::vector<goldengate_column_meta> columns;
  bool has_ddl = false;                                  // `ddl` was an object
  std::string_view ddl_catalog, ddl_schema, ddl_object;  // ddl.object's parts
  std::string_view ddl_qualified;                        // ddl.object sent as one string
  std::optional<std::string_view> ddl_statement;
  std::vector<member> members;
  std::vector<json_leaf> leaves;
  std::string_view raw;  // the record's JSON text
  // A CloudEvents envelope whose data is a JSON string: that text, still to be read.
  std::optional<std::string_view> data_text;

  const slot& get(goldengate_field f) const { return fields[static_cast<size_t>(f)]; }
  const member* find(std::string_view name) const;
  std::span<const json_leaf> leaves_of(const member& m) const {
    return std::span<const json_leaf>(leaves).subspan(m.first_leaf, m.leaf_count);
  }
  void clear();
};

// Reads records from documents the parser has just opened. Fails on invalid JSON, content
// after the record, a root that is not an object, a name given twice, an image or `columns`
// wider than max_columns, nesting deeper than max_depth below a member, \u0000 anywhere, and
// OBJECT_METADATA column or `ddl` attributes of the wrong type. Missing members and members of
// the wrong kind are not errors here: the decoder decides what each record kind needs.
//
// A CloudEvents envelope (a root object with `specversion`) is unwrapped: its `data` object is
// read as the record; when `data` is a JSON string, only out.data_text is set, and the caller
// parses that text and reads it again with unwrap = false.
//
// Lifecycle: one per decoder (it holds the decoder's names by reference). Threading: as its
// decoder.
class goldengate_record_reader {
 public:
  goldengate_record_reader(const goldengate_names& names, size_t max_depth, size_t max_columns)
      : _names(names), _values(max_depth), _max_columns(max_columns) {}

  // text: the bytes the parser was given, for error offsets.
  std::optional<error> read(simdjson::ondemand::document& doc, std::string_view text, bool unwrap,
                            goldengate_record& out);
  // read(doc, text, unwrap = true, out) in one pass for the usual record, one that is not a
  // CloudEvents envelope: true when it read the record, which has no root "specversion". False
  // when the record failed or names "specversion" at its root; then out is to be read again,
  // by read() with unwrap from the document iterated afresh, for its error or its envelope.
  // (Spares read() its probe of the root's names, a walk over the whole record.)
  bool read_plain(simdjson::ondemand::document& doc, std::string_view text, goldengate_record& out);

 private:
  std::optional<error> read_root(simdjson::ondemand::document& doc, std::string_view text,
                                 bool envelope, goldengate_record& out);
  std::optional<error> read_envelope(simdjson::ondemand::object& root, goldengate_record& out);
  std::optional<error> read_record(simdjson::ondemand::object& object, goldengate_record& out);
  std::optional<error> read_image(simdjson::ondemand::value& v, goldengate_field which,
                                  goldengate_record& out);
  std::optional<error> read_columns(simdjson::ondemand::value& v, goldengate_record& out);
  std::optional<error> read_column(std::string_view name, simdjson::ondemand::value& v,
                                   goldengate_record& out);
  std::optional<error> read_ddl(simdjson::ondemand::value& v, goldengate_record& out);
  std::optional<error> read_ddl_object(simdjson::ondemand::value& v, goldengate_record& out);
  std::optional<error> read_member(std::string_view name, simdjson::ondemand::value& v,
                                   goldengate_record& out);
  // Sorts _scratch; the first name it holds twice, or nullptr.
  const std::string_view* find_duplicate();
  error fail(simdjson::error_code code) const;

  const goldengate_names& _names;
  json_value_reader _values;
  size_t _max_columns;
  simdjson::ondemand::document* _doc = nullptr;  // the one being read, for error offsets
  std::vector<std::string_view> _scratch;        // names, for find_duplicate()
  // Per image (before, after): the column names of the last one found without duplicates.
  std::array<std::vector<std::string>, 2> _unique_names;
  bool _plain = false;  // in read_plain(): read_record() stops at a "specversion"
};

}  // namespace sluice
