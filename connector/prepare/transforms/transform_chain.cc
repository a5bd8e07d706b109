#include "connector/prepare/transforms/transform_chain.h"

#include <stdexcept>

namespace sluice {
namespace {

column_rules replace_field(const std::string& name, const transform_config& t) {
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

transform_chain::transform_chain(const config& c) {
  for (const std::string& name : c.transforms) {
    const auto found = c.transform_settings.find(name);
    if (found == c.transform_settings.end())
      throw std::invalid_argument("transforms: " + name + " has no transforms." + name + ".type");
    const transform_config& t = found->second;
    auto kind = transform_kind_of(t.type);
    if (auto* why = std::get_if<std::string>(&kind))
      throw std::invalid_argument("transforms." + name + ".type: " + *why);
    switch (std::get<transform_kind>(kind)) {
      case transform_kind::regex_router: {
        auto router = regex_router::compile(t.regex, t.replacement);
        if (auto* why = std::get_if<std::string>(&router))
          throw std::invalid_argument("transforms." + name + ": " + *why);
        _routers.push_back(std::get<regex_router>(std::move(router)));
        break;
      }
      case transform_kind::replace_field:
        if (column_rules rules = replace_field(name, t); !rules.none())
          _fields.push_back(std::move(rules));
        break;
    }
  }
}

std::string_view transform_chain::topic(std::string_view topic) {
  if (_routers.empty()) return topic;
  // Messages come in runs of one topic: the last answer first, then the map.
  if (_last != nullptr && _last->first == topic) return _last->second;
  auto it = _topics.find(topic);
  if (it == _topics.end()) {
    std::string routed(topic);
    for (const regex_router& r : _routers)
      routed = r.route(routed);
    it = _topics.emplace(std::string(topic), std::move(routed)).first;
  }
  _last = &*it;
  return it->second;
}

std::string transform_chain::source_name(std::string name) const {
  for (auto it = _fields.rbegin(); it != _fields.rend(); ++it)
    name = it->source_name(name);
  return name;
}

std::optional<std::string> transform_chain::apply(change& c) {
  for (column_rules& rules : _fields) {
    if (auto why = rules.apply(c)) return why;
  }
  return std::nullopt;
}

}  // namespace sluice
