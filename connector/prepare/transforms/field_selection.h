#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "connector/config/config.h"
#include "connector/prepare/transforms/column_rules.h"
#include "core/model/change.h"

namespace sluice {

// fields.include / fields.exclude / fields.rename and their tables.<source>.fields.* (SPEC
// §6a "Fields"): which columns of a decoded change are written, and under which names. Applied
// in prepare/ before the table filter and the merge, so that an excluded column never reaches
// the sink (never written, never created) and a renamed key column renames the key the merge
// partitions on.
//
//   include (global entries `field` or `topic:field`, and the table's): when any applies, only
//     those columns and the key's stay
//   exclude: those columns go; a key column named is an error (the message is a dead letter)
//   rename: the table's win over the global ones; two columns onto one name is an error
//
// `topic` is the topic after the routing transforms (RegexRouter), as Debezium matches its
// topic:field entries. Rules are compiled once per (table, topic) into column_rules, so a
// change the rules leave alone costs one hash look-up, and one that has rules applied
// allocates only where a column is renamed.
//
// Lifecycle: one per preparer; the config outlives it. Threading: the preparer's one thread.
class field_selection {
 public:
  explicit field_selection(const config& c);

  // Whether no field rule is configured at all (apply() is then never needed).
  bool empty() const { return _empty; }
  // Applies the rules to one change that came on `topic`; an error says why it cannot be.
  std::optional<std::string> apply(change& c, std::string_view topic);
  // The source column the rules of `table` on `topic` rename onto `name` (itself when none).
  std::string source_name(const table_name& table, std::string_view topic,
                          const std::string& name) const;

 private:
  column_rules& rules_for(const table_entry& table, std::string_view topic);
  column_rules compile(const table_name& table, std::string_view topic) const;

  const config& _config;
  bool _empty = true;
  // By table, then by topic (a table comes on one topic, or a few): no string is built to look
  // a change's rules up.
  std::unordered_map<const table_entry*,
                     std::vector<std::pair<std::string, std::unique_ptr<column_rules>>>>
      _rules;
};

}  // namespace sluice
