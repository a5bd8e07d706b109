#include "connector/prepare/transforms/transform_chain.h"

#include <stdexcept>

#include "connector/prepare/transforms/replace_field.h"
#include "connector/prepare/transforms/transform_factory.h"

namespace sluice {

transform_chain::transform_chain(const config& c) {
  for (const std::string& name : c.transforms) {
    const auto found = c.transform_settings.find(name);
    if (found == c.transform_settings.end())
      throw std::invalid_argument("transforms: " + name + " has no transforms." + name + ".type");
    const transform_config& t = found->second;
    auto kind = transform_kind_of(t.type);
    if (auto* why = std::get_if<std::string>(&kind))
      throw std::invalid_argument("transforms." + name + ".type: " + *why);
    step s;
    s.negate = t.negate;
    s.routers_before = _routers;
    if (!t.predicate.empty()) {
      auto p = _predicates.find(t.predicate);
      if (p == _predicates.end()) {
        const auto settings = c.predicate_settings.find(t.predicate);
        if (settings == c.predicate_settings.end())
          throw std::invalid_argument("transforms." + name + ".predicate: no predicates." +
                                      t.predicate);
        p = _predicates
                .emplace(t.predicate,
                         std::make_unique<transform_predicate>(t.predicate, settings->second))
                .first;
      }
      s.when = p->second.get();
    }
    const transform_kind k = std::get<transform_kind>(kind);
    const bool router =
        k == transform_kind::regex_router || k == transform_kind::by_logical_table_router;
    if (router && s.when != nullptr && s.when->kind() != predicate_kind::topic_name_matches) {
      throw std::invalid_argument("transforms." + name + ".predicate: a " +
                                  std::string(transform_name(k)) +
                                  " runs on topics, under TopicNameMatches only");
    }
    if (k == transform_kind::regex_router) {
      auto compiled = regex_router::compile(t.regex, t.replacement);
      if (auto* why = std::get_if<std::string>(&compiled))
        throw std::invalid_argument("transforms." + name + ": " + *why);
      s.router.emplace(std::get<regex_router>(std::move(compiled)));
      ++_routers;
    } else if (k == transform_kind::by_logical_table_router) {
      auto logical = std::make_unique<by_logical_table_router>(name, t);
      s.logical = logical.get();
      s.change = std::move(logical);
      ++_routers;
    } else {
      s.change = make_change_transform(k, name, t);
      if (auto* fields = dynamic_cast<replace_field*>(s.change.get()))
        _replace_fields.push_back(&fields->rules());
    }
    _steps.push_back(std::move(s));
  }
}

transform_chain::~transform_chain() = default;
transform_chain::transform_chain(transform_chain&&) noexcept = default;

const transform_chain::routed& transform_chain::routes_of(std::string_view topic) {
  // Messages come in runs of one topic: the last answer first, then the map.
  if (_last != nullptr && _last->first == topic) return _last->second;
  auto it = _topics.find(topic);
  if (it == _topics.end()) {
    routed after;
    after.reserve(_routers + 1);
    after.emplace_back(topic);
    for (step& s : _steps) {
      if (!s.routes()) continue;
      const std::string& current = after.back();
      const bool runs = s.when == nullptr || s.when->matches_topic(current) != s.negate;
      after.push_back(runs ? s.route(current) : current);
    }
    it = _topics.emplace(std::string(topic), std::move(after)).first;
  }
  _last = &*it;
  return it->second;
}

std::string_view transform_chain::topic(std::string_view topic) {
  if (_routers == 0) return topic;
  return routes_of(topic).back();
}

std::string transform_chain::source_name(std::string name) const {
  for (auto it = _replace_fields.rbegin(); it != _replace_fields.rend(); ++it)
    name = (*it)->source_name(name);
  return name;
}

std::variant<change_transform::outcome, std::string> transform_chain::apply(
    change& c, const raw_message& raw) {
  const routed* topics = _routers == 0 ? nullptr : &routes_of(raw.topic);
  for (step& s : _steps) {
    if (!s.change) continue;
    const record_context r{
        raw, topics ? std::string_view((*topics)[s.routers_before]) : std::string_view(raw.topic)};
    if (s.when != nullptr && s.when->matches(c, r) == s.negate) continue;
    auto done = s.change->apply(c, r);
    if (std::holds_alternative<std::string>(done) ||
        std::get<change_transform::outcome>(done) == change_transform::outcome::drop)
      return done;
  }
  return change_transform::outcome::keep;
}

}  // namespace sluice
