#include "connector/prepare/change_rules.h"

namespace sluice {

change_rules::change_rules(const config& c) : _transforms(c), _keys(c), _fields(c) {}

std::variant<change_transform::outcome, std::string> change_rules::apply(change& c,
                                                                         const raw_message& raw) {
  if (!_transforms.empty()) {
    auto done = _transforms.apply(c, raw);
    if (!std::holds_alternative<change_transform::outcome>(done) ||
        std::get<change_transform::outcome>(done) == change_transform::outcome::drop)
      return done;
  }
  const std::string_view routed = _transforms.topic(raw.topic);
  auto keyed = _keys.apply(c, raw, routed);
  if (!std::holds_alternative<change_transform::outcome>(keyed) ||
      std::get<change_transform::outcome>(keyed) == change_transform::outcome::drop)
    return keyed;
  if (!_fields.empty()) {
    if (auto why = _fields.apply(c, routed)) return std::move(*why);
  }
  return change_transform::outcome::keep;
}

}  // namespace sluice
