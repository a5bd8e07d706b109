#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/model/change.h"
#include "core/model/column_type.h"

namespace sluice {

// One compiled set of column rules — which columns of a change stay, and under which names —
// applied to decoded changes in prepare/, before the merge. fields.* compiles one per (table,
// topic) (field_selection.h), each ReplaceField transform one for every change:
//
//   exclude: those columns go (never written, never created); a key column named is an error
//   include: when not empty, only those columns and the key's stay
//   rename:  the columns that stay are renamed, the key's too (the merge partitions on the
//            renamed key); two columns onto one name is an error, not a guess
//
// Include and exclude name the columns as they come in, before the renames, as Connect's
// ReplaceField does. A change's shared column types are rebuilt once per schema, not per change.
//
// Lifecycle: built once, owned by its user. Threading: one thread (the types cache).
class column_rules {
 public:
  using name_set = std::unordered_set<std::string>;
  using rename_map = std::unordered_map<std::string, std::string>;

  column_rules() = default;
  // `who` begins the errors: "field rules", "transforms.route".
  column_rules(name_set include, name_set exclude, rename_map rename, std::string who);

  // Whether the rules leave every change as it is.
  bool none() const { return _include.empty() && _exclude.empty() && _rename.empty(); }
  // Applies the rules to `c`; why they cannot apply (the change is then unusable).
  std::optional<std::string> apply(change& c);
  // The column these rules rename onto `name` (`name` itself when none does): a key read from
  // the target names the renamed columns, the decoder looks for the source's.
  const std::string& source_name(const std::string& name) const;

 private:
  bool kept(const std::string& name, const row_key& key) const;
  shared_column_types types_for(const shared_column_types& types, const row_key& key);

  name_set _include, _exclude;
  rename_map _rename;
  std::string _who;
  // A schema's columns as these rules leave them, the source kept alive so that its address
  // is never reused for another while cached.
  std::unordered_map<const column_types*, std::pair<shared_column_types, shared_column_types>>
      _types;
};

}  // namespace sluice
