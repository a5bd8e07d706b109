#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "connector/config/config.h"
#include "connector/prepare/key_mode_step.h"
#include "connector/prepare/transforms/field_selection.h"
#include "connector/prepare/transforms/transform_chain.h"

namespace sluice {

// The rules every decoded change goes through in prepare/, in order, whichever way it came
// (a message's changes in the preparer, a DSQL chunk's completed change in its decoder):
//
//   transforms (transform_chain.h)  SMTs under their predicates; a Filter drops the change
//   key and insert modes (key_mode_step.h)
//   field rules (field_selection.h) fields.*, tables.<source>.fields.*, by the routed topic
//
// Lifecycle: one per preparer or chunk decoder; the config outlives it. Threading: one thread.
class change_rules {
 public:
  explicit change_rules(const config& c);

  // Whether every change stays as it is: no transform, no key mode, no field rule.
  bool none() const { return _transforms.empty() && _keys.none() && _fields.empty(); }
  bool routes() const { return _transforms.routes(); }
  // The topic as the RegexRouters rename it (transform_chain::topic).
  std::string_view topic(std::string_view topic) { return _transforms.topic(topic); }
  // Runs the rules on `c`, come in `raw`: keep, drop (a Filter), or why it cannot be used.
  std::variant<change_transform::outcome, std::string> apply(change& c, const raw_message& raw);

 private:
  transform_chain _transforms;
  key_mode_step _keys;
  field_selection _fields;
};

}  // namespace sluice
