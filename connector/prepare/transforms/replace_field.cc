#include "connector/prepare/transforms/replace_field.h"

#include <stdexcept>

#include "connector/config/transform_types.h"

namespace sluice {
namespace {

column_rules rules_of(const std::string& name, const transform_config& t) {
  column_rules::name_set include(t.include.begin(), t.include.end());
  include.insert(t.whitelist.begin(), t.whitelist.end());
  column_rules::name_set exclude(t.exclude.begin(), t.exclude.end());
  exclude.insert(t.blacklist.begin(), t.blacklist.end());
  column_rules::rename_map rename;
  for (const std::string& entry : t.renames) {
    auto pair = parse_rename(entry);
    if (auto* why = std::get_if<std::string>(&pair))
      throw std::invalid_argument("transforms." + name + ".renames: " + *why);
    rename.insert(std::get<std::pair<std::string, std::string>>(std::move(pair)));
  }
  return column_rules(std::move(include), std::move(exclude), std::move(rename),
                      "transforms." + name);
}

}  // namespace

replace_field::replace_field(const std::string& name, const transform_config& t)
    : _rules(rules_of(name, t)) {}

std::variant<change_transform::outcome, std::string> replace_field::apply(change& c,
                                                                          const record_context&) {
  if (auto why = _rules.apply(c)) return std::move(*why);
  return outcome::keep;
}

}  // namespace sluice
