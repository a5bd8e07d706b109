#pragma once

#include <optional>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/catalog/table_catalog.h"

namespace sluice {

// Which source tables the connector replicates (tables.include / tables.exclude, SPEC §4):
// regular expressions (ECMAScript) matched against the whole qualified source name
// (table_name::qualified(), e.g. "shop.public.orders"). A table is kept when it matches an
// include pattern (or none is given) and no exclude pattern.
//
// Threading: one per decode thread; allows() caches its answer per catalog entry, so a
// pattern runs once per table, not once per change.
class table_filter {
 public:
  table_filter() = default;  // keeps every table
  // Throws std::invalid_argument naming a pattern that is not a valid regular expression
  // (configuration checks it first: pattern_error()).
  table_filter(const std::vector<std::string>& include, const std::vector<std::string>& exclude);

  // Why a pattern is not a valid regular expression; nullopt when it is.
  static std::optional<std::string> pattern_error(const std::string& pattern);

  bool keeps_all() const { return _include.empty() && _exclude.empty(); }
  bool allows(const table_entry& table);
  bool allows(const table_name& name) const;

 private:
  std::vector<std::regex> _include;
  std::vector<std::regex> _exclude;
  std::unordered_map<const table_entry*, bool> _answers;
};

}  // namespace sluice
