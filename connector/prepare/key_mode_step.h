#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "connector/config/config.h"
#include "connector/prepare/transforms/change_transform.h"
#include "connector/prepare/transforms/derived_types.h"
#include "core/model/change.h"
#include "core/model/raw_message.h"

namespace sluice {

// primary.key.mode and insert.mode on a decoded change, in prepare/ after the transforms and
// before the field rules and the merge (SPEC §6a "Modes"), as the JDBC sinks key their records:
//
//   record_key     the change's own key; primary.key.fields keeps those of its columns
//   record_value   the image's columns named by primary.key.fields (all when empty), as
//                  ValueToKey: a delete names its row from the image it carries or its key
//   record_header  the message's headers named (all when empty), as text columns of the row
//   kafka          __connect_topic (as routed), __connect_partition, __connect_offset added to
//                  the row, which is appended
//   none           no key: appended
//
// Append modes (kafka, none, or insert.mode insert) leave the change without a key: the merge
// keeps every such change as it came (never collapsed), and the sink appends it with its op,
// CSN and source position (topic, partition, offset, index in the message), written once.
// Deletes are applied under record_key only (delete.enabled requires it, as in Connect): under
// the other modes, and appending, they are dropped here, as the peers skip them. Truncates pass
// as they came.
//
// Lifecycle: built once from the configuration. Threading: one thread (the types cache).
class key_mode_step {
 public:
  explicit key_mode_step(const config& c);

  // Whether every change stays as it is (record_key with all its columns, upsert or update).
  bool none() const { return _none; }
  // Applies the mode to `c`, come in `raw` on `topic` (as routed): keep, drop (a delete the
  // mode never applies), or why it cannot.
  std::variant<change_transform::outcome, std::string> apply(change& c, const raw_message& raw,
                                                             std::string_view topic);

 private:
  std::optional<std::string> keep_key_fields(change& c) const;
  std::optional<std::string> key_from_headers(change& c, const raw_message& raw);
  void add_position(change& c, std::string_view topic);

  key_mode _mode;
  bool _append;
  bool _none;
  bool _skip_deletes;
  std::vector<std::string> _fields;
  std::string _who;
  std::vector<std::string> _names;  // scratch: the columns of an all-columns key
  derived_types _types;
};

}  // namespace sluice
