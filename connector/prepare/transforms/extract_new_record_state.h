#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "connector/prepare/transforms/change_transform.h"
#include "connector/prepare/transforms/derived_types.h"
#include "connector/prepare/transforms/envelope_fields.h"

namespace sluice {

// The options of Debezium's ExtractNewRecordState (transforms.<name>.<option>), under
// Debezium's names, with Debezium's defaults (2.7 and 3.x, ExtractNewRecordStateConfigDefinition).
struct unwrap_options {
  // delete.tombstone.handling.mode (2.5+; 3.x's only delete option): drop | tombstone | rewrite
  // | rewrite-with-tombstone | delete-to-tombstone. Unset: tombstone (3.x's default), unless a
  // 2.x option below is set. When set, the 2.x options are ignored, as in Debezium 2.x.
  std::optional<std::string> delete_tombstone_handling_mode;
  // delete.handling.mode (2.x, removed in 3.0): drop | rewrite | none; default drop.
  std::optional<std::string> delete_handling_mode;
  // drop.tombstones (2.x, removed in 3.0): default true.
  std::optional<bool> drop_tombstones;
  std::vector<std::string> add_fields;    // add.fields (a list): default none
  std::string add_fields_prefix = "__";   // add.fields.prefix
  std::vector<std::string> add_headers;   // add.headers (a list): refused when not empty
  std::string add_headers_prefix = "__";  // add.headers.prefix: accepted, unused
  std::string route_by_field;             // route.by.field: refused when not empty
  bool replace_null_with_default = true;  // replace.null.with.default (3.x): accepted
  std::string drop_fields_header_name;    // drop.fields.header.name: refused when not empty
  bool drop_fields_from_key = false;      // drop.fields.from.key: only with the header
  bool drop_fields_keep_schema_compatible = true;  // drop.fields.keep.schema.compatible: idem
};

// Debezium's ExtractNewRecordState ("unwrap") with its options. sluice decodes the envelope
// itself, so the transform without options changes nothing; its options change what a JDBC
// sink behind it writes, and this gives them that meaning on decoded changes:
//
//   truncate:            dropped, in every mode (the transform drops truncate events)
//   delete, drop:        dropped: nothing is deleted in the replica
//   delete, tombstone / delete-to-tombstone / none:
//                        stays a delete (the JDBC sinks delete on a null value or tombstone)
//   delete, rewrite / rewrite-with-tombstone:
//                        an upsert of the image it removes (Debezium's `before`), with the
//                        delete's CSN, and __deleted = "true"; a delete without that image
//                        stays a delete (Debezium passes it on as a null value)
//   upsert:              under rewrite modes, __deleted = "false"
//   upserts and rewritten deletes: + the add.fields columns, after __deleted
//
// Kafka tombstones carry nothing for sluice: it reads the delete from the envelope and never
// writes a Kafka record, so drop.tombstones and the "-with-tombstone" / "delete-to-tombstone"
// variants matter only for what the tombstone would do at a JDBC sink, which deletes on it:
// a 2.x `drop` with drop.tombstones=false (the usual Confluent JDBC set-up for deletes) keeps
// the delete; rewrite-with-tombstone keeps the rewritten row (one change per message: sluice
// cannot both rewrite and delete it), as a JDBC sink with delete.enabled=false leaves it.
//
// __deleted is an optional string, as Debezium inserts it (Connect's InsertField static value,
// 2.x and 3.x alike). Typed changes get the new columns' types once per schema; untyped ones
// stay untyped. A new column may not already be in the image or its schema (a key column
// least of all): the message is then a dead letter naming it.
//
// Lifecycle: built once from the configuration, owned by the chain. Threading: one thread.
class extract_new_record_state final : public change_transform {
 public:
  // Throws std::invalid_argument("transforms.<name>.<option>: why") for an option value
  // Debezium refuses or one sluice cannot honour (add.headers, route.by.field,
  // drop.fields.header.name).
  extract_new_record_state(const std::string& name, const unwrap_options& o);

  std::variant<outcome, std::string> apply(change& c, const record_context& r) override;

 private:
  enum class deletes : uint8_t { drop, keep, rewrite };

  // The add.fields values for `c` (read before it is rewritten); else why not.
  std::optional<std::string> field_values(const change& c, const record_context& r);
  std::optional<std::string> collision(const change& c) const;
  shared_column_types types_of(const shared_column_types& from) const;

  std::string _who;
  deletes _deletes = deletes::keep;
  std::vector<envelope_field> _fields;
  // Scratch, per change: the values of _fields, the fields the change alone cannot give and
  // their values from the message.
  std::vector<value> _values;
  std::vector<const envelope_field*> _from_json;
  std::vector<value> _json_values;
  envelope_field_reader _json;
  derived_types _types;
};

}  // namespace sluice
