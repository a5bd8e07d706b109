#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "core/model/change.h"
#include "core/model/raw_message.h"

namespace sluice {

// What a transform may read of the message a change came from, beside the change itself
// (whose source.origin holds the topic as consumed, the partition, the offset of this change and
// the Kafka timestamp).
struct record_context {
  const raw_message& raw;  // as consumed: key, value (nullopt: a Kafka tombstone), headers
  std::string_view topic;  // the topic after the RegexRouters listed before the transform
};

// One configured transform (SMT) over decoded changes (transform_chain runs them in order, each
// under its predicate). A RegexRouter is not one: it renames topics, not changes.
//
// Lifecycle: built once from the configuration, owned by the chain. Threading: one thread (a
// transform may cache per topic or per schema).
class change_transform {
 public:
  enum class outcome : uint8_t { keep, drop };

  virtual ~change_transform() = default;
  // Transforms `c` in place and says whether it stays (Filter drops); else why it cannot be
  // transformed, which makes its message a dead letter (or a stop, errors.tolerance: none).
  virtual std::variant<outcome, std::string> apply(change& c, const record_context& r) = 0;
};

}  // namespace sluice
