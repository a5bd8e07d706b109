#include "core/catalog/table_filter.h"

#include <stdexcept>

namespace sluice {
namespace {

constexpr auto syntax = std::regex::ECMAScript | std::regex::optimize;

std::vector<std::regex> compile(const std::vector<std::string>& patterns, const char* what) {
  std::vector<std::regex> out;
  out.reserve(patterns.size());
  for (const std::string& p : patterns) {
    if (auto why = table_filter::pattern_error(p)) {
      throw std::invalid_argument(std::string(what) + ": " + *why);
    }
    out.emplace_back(p, syntax);
  }
  return out;
}

bool any_full_match(const std::vector<std::regex>& patterns, const std::string& name) {
  for (const std::regex& r : patterns) {
    if (std::regex_match(name, r)) return true;
  }
  return false;
}

}  // namespace

table_filter::table_filter(const std::vector<std::string>& include,
                           const std::vector<std::string>& exclude)
    : _include(compile(include, "tables.include")), _exclude(compile(exclude, "tables.exclude")) {}

std::optional<std::string> table_filter::pattern_error(const std::string& pattern) {
  try {
    std::regex r(pattern, syntax);
  } catch (const std::regex_error& e) {
    return "\"" + pattern + "\" is not a regular expression: " + e.what();
  }
  return std::nullopt;
}

bool table_filter::allows(const table_name& name) const {
  if (keeps_all()) return true;
  const std::string qualified = name.qualified();
  if (!_include.empty() && !any_full_match(_include, qualified)) return false;
  return !any_full_match(_exclude, qualified);
}

bool table_filter::allows(const table_entry& table) {
  if (keeps_all()) return true;
  auto it = _answers.find(&table);
  if (it == _answers.end()) it = _answers.emplace(&table, allows(table.name)).first;
  return it->second;
}

}  // namespace sluice
