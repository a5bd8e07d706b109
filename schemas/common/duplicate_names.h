#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "schemas/common/same_text.h"

namespace sluice {

// A member name that appears twice among the names of one JSON object, if any. On-Demand does
// not reject duplicate names, so each reader checks the objects whose members it keeps.
//
// Decoders call this for every object of every message, and those objects have a few dozen
// members: comparing the pairs of names that share a length costs a fraction of sorting them;
// wider objects are sorted, so a hostile 4,096-column row stays n log n. May reorder names.
inline std::optional<std::string_view> find_duplicate_name(std::span<std::string_view> names) {
  constexpr size_t pairwise_up_to = 32;
  if (names.size() <= pairwise_up_to) {
    // Only names whose length (mod 64) another name shares can repeat: one pass over the
    // lengths usually settles it, and the pairs compared are those of the shared lengths.
    uint64_t seen = 0, shared = 0;
    for (std::string_view n : names) {
      const uint64_t bit = uint64_t{1} << (n.size() & 63);
      shared |= seen & bit;
      seen |= bit;
    }
    if (shared == 0) return std::nullopt;
    for (size_t i = 1; i < names.size(); ++i) {
      if (!(shared >> (names[i].size() & 63) & 1)) continue;
      for (size_t j = 0; j < i; ++j) {
        if (same_text(names[i], names[j])) return names[i];
      }
    }
    return std::nullopt;
  }
  std::sort(names.begin(), names.end());
  const auto dup = std::adjacent_find(names.begin(), names.end());
  if (dup == names.end()) return std::nullopt;
  return *dup;
}

// find_duplicate_name over the names of `members` (anything with a `name`), gathered in
// `scratch`. When they are unique they are remembered in `unique`, so that a reader can skip
// the check for the next object that names exactly the same list.
template <typename Members>
std::optional<std::string_view> find_duplicate_member(const Members& members,
                                                      std::vector<std::string_view>& scratch,
                                                      std::vector<std::string>& unique) {
  scratch.clear();
  for (const auto& m : members)
    scratch.push_back(m.name);
  const auto dup = find_duplicate_name(scratch);
  if (!dup) {
    unique.resize(scratch.size());
    size_t i = 0;
    for (const auto& m : members)
      unique[i++].assign(m.name);
  }
  return dup;
}

}  // namespace sluice
