#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "connector/config/config.h"
#include "connector/prepare/transforms/by_logical_table_router.h"
#include "connector/prepare/transforms/change_transform.h"
#include "connector/prepare/transforms/column_rules.h"
#include "connector/prepare/transforms/regex_router.h"
#include "connector/prepare/transforms/transform_predicate.h"
#include "core/model/change.h"

namespace sluice {

// The configured transforms (`transforms`, transforms.<name>.*, predicates.<name>.*), run in
// prepare/ on each decoded change before the field rules, the table filter, the merge and
// routing (SPEC §6a), in the list's order, each under its predicate (negate: where it does not
// match):
//
//   topic(t):  t through every router (RegexRouter, ByLogicalTableRouter) — what the
//              message's changes are routed by (${topic}) and fields' topic:field entries
//              match; cached per topic
//   apply(c):  c through every other transform (change_transform.h): ReplaceField, Filter,
//              InsertField, ...; each sees the topic as the routers listed before it left it.
//              A Filter drops the change; a transform that cannot apply says why
//
// A router reads only the topic (its predicate can only be TopicNameMatches, which reads the
// topic too), so its answers are cached per topic and the changes are routed once per table
// in the batch; the transforms after it see its topic as Connect's ordered list would. A
// ByLogicalTableRouter is both: a router, and a change transform that adds the shard to the
// key, seeing the topic as it came to it (the one it renames), under the same predicate.
//
// Lifecycle: one per preparer (or per key lookup, which needs topic() only); the config
// outlives it. Threading: one thread (the caches).
class transform_chain {
 public:
  // Throws std::invalid_argument for a transform the loader would have refused.
  explicit transform_chain(const config& c);
  ~transform_chain();
  transform_chain(transform_chain&&) noexcept;

  bool empty() const { return _steps.empty(); }
  bool routes() const { return _routers > 0; }
  // The topic after the routers (the argument itself when there are none). The view stays
  // valid for the chain's lifetime.
  std::string_view topic(std::string_view topic);
  // Runs the transforms on `c`, come in message `raw`: keep, drop, or why not.
  std::variant<change_transform::outcome, std::string> apply(change& c, const raw_message& raw);
  // The source column the ReplaceFields rename onto `name`, undoing them in reverse order.
  std::string source_name(std::string name) const;

 private:
  struct step {
    std::optional<regex_router> router;        // a RegexRouter, or
    std::unique_ptr<change_transform> change;  // any other transform;
    // a ByLogicalTableRouter is `change` and routes topics too (it points into `change`)
    const by_logical_table_router* logical = nullptr;
    transform_predicate* when = nullptr;  // its predicate (owned by _predicates)
    bool negate = false;
    size_t routers_before = 0;  // the index of its topic in routed::after

    bool routes() const { return router || logical; }
    std::string route(const std::string& topic) const {
      return router ? router->route(topic) : logical->route(topic);
    }
  };
  // A topic as each router left it: after[k] is the topic after the first k routers.
  using routed = std::vector<std::string>;
  const routed& routes_of(std::string_view topic);

  std::vector<step> _steps;
  size_t _routers = 0;
  std::map<std::string, std::unique_ptr<transform_predicate>> _predicates;
  std::vector<const column_rules*> _replace_fields;  // in order, for source_name()
  std::map<std::string, routed, std::less<>> _topics;
  const std::pair<const std::string, routed>* _last = nullptr;  // the last one asked
};

}  // namespace sluice
