#pragma once

#include "connector/prepare/transforms/change_transform.h"

namespace sluice {

// Kafka Connect's Filter: drops every change it runs on, so it is always given a predicate
// (TopicNameMatches, HasHeaderKey, RecordIsTombstone, negate) that says which. A message left
// with no change is filtered: its offset moves on, nothing is written.
class filter_transform final : public change_transform {
 public:
  std::variant<outcome, std::string> apply(change&, const record_context&) override {
    return outcome::drop;
  }
};

}  // namespace sluice
