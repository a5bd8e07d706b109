#include "connector/prepare/transforms/transform_predicate.h"

#include <stdexcept>

namespace sluice {

transform_predicate::transform_predicate(const std::string& name, const predicate_config& p) {
  auto kind = predicate_kind_of(p.type);
  if (auto* why = std::get_if<std::string>(&kind))
    throw std::invalid_argument("predicates." + name + ".type: " + *why);
  _kind = std::get<predicate_kind>(kind);
  if (_kind == predicate_kind::topic_name_matches) {
    if (std::string why = regex_error_text(p.pattern); !why.empty() || p.pattern.empty())
      throw std::invalid_argument("predicates." + name + ".pattern: " +
                                  (p.pattern.empty() ? std::string("required") : why));
    _pattern = std::regex(p.pattern, std::regex::ECMAScript);
  } else if (_kind == predicate_kind::has_header_key) {
    if (p.name.empty()) throw std::invalid_argument("predicates." + name + ".name: required");
    _header = p.name;
  }
}

bool transform_predicate::matches_topic(std::string_view topic) {
  auto it = _topics.find(topic);
  if (it == _topics.end()) {
    const bool m = std::regex_match(topic.begin(), topic.end(), _pattern);
    it = _topics.emplace(std::string(topic), m).first;
  }
  return it->second;
}

bool transform_predicate::matches(const change& c, const record_context& r) {
  switch (_kind) {
    case predicate_kind::topic_name_matches:
      return matches_topic(r.topic);
    case predicate_kind::has_header_key:
      for (const auto& [name, value] : r.raw.headers) {
        if (name == _header) return true;
      }
      return false;
    case predicate_kind::record_is_tombstone:
      return !r.raw.value || c.op == op_kind::remove;
  }
  return false;
}

}  // namespace sluice
