#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace sluice {

// Edit distance counting an insertion, a deletion, a substitution or a swap of two adjacent
// characters as one edit (optimal string alignment).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word`, if it is near enough to be a likely typo of it (at most one
// edit per three characters, at least one).
std::optional<std::string_view> closest_match(std::string_view word,
                                              std::span<const std::string_view> candidates);

}  // namespace sluice
