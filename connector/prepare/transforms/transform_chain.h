#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "connector/config/config.h"
#include "connector/prepare/transforms/column_rules.h"
#include "connector/prepare/transforms/regex_router.h"
#include "core/model/change.h"

namespace sluice {

// The configured transforms (`transforms`, transforms.<name>.*), run in prepare/ on each
// decoded change before the field rules, the table filter, the merge and routing (SPEC §6a):
//
//   topic(t):  t through every RegexRouter, in order — what the message's changes are routed
//              by (${topic}) and fields' topic:field entries match; cached per topic
//   apply(c):  c through every ReplaceField, in order (column_rules: include/exclude/renames;
//              a key column excluded or two columns onto one name: why not)
//
// A RegexRouter reads only the topic and a ReplaceField only the columns, so running the
// routers before the field transforms gives what Connect's one ordered list gives.
//
// Lifecycle: one per preparer (or per key lookup, which needs topic() only); the config
// outlives it. Threading: one thread (the caches).
class transform_chain {
 public:
  // Throws std::invalid_argument for a transform the loader would have refused.
  explicit transform_chain(const config& c);

  bool empty() const { return _routers.empty() && _fields.empty(); }
  bool routes() const { return !_routers.empty(); }
  // The topic after the routers (the argument itself when there are none). The view stays
  // valid for the chain's lifetime.
  std::string_view topic(std::string_view topic);
  std::optional<std::string> apply(change& c);
  // The source column the ReplaceFields rename onto `name`, undoing them in reverse order.
  std::string source_name(std::string name) const;

 private:
  std::vector<regex_router> _routers;
  std::vector<column_rules> _fields;
  std::map<std::string, std::string, std::less<>> _topics;           // topic -> routed topic
  const std::pair<const std::string, std::string>* _last = nullptr;  // the last one asked
};

}  // namespace sluice
