#pragma once

#include <map>
#include <regex>
#include <string>
#include <string_view>

#include "connector/config/config.h"
#include "connector/config/transform_types.h"
#include "connector/prepare/transforms/change_transform.h"

namespace sluice {

// A Kafka Connect predicate (predicates.<name>), which a transform runs under:
//
//   TopicNameMatches(pattern): the topic, as the routers before the transform left it, matches
//                              the regex whole (Java's matches()); cached per topic
//   HasHeaderKey(name):        the message has a header of that name (any value, null too)
//   RecordIsTombstone:         the message's value is null (a Kafka tombstone), or the change is
//                              a delete: sluice reads the envelope, and a delete is what a JDBC
//                              sink behind ExtractNewRecordState receives as a tombstone
//
// Lifecycle: built once from the configuration. Threading: one thread (the topic cache).
class transform_predicate {
 public:
  // Throws std::invalid_argument for a predicate the loader would have refused.
  transform_predicate(const std::string& name, const predicate_config& p);

  predicate_kind kind() const { return _kind; }
  bool matches(const change& c, const record_context& r);
  // TopicNameMatches only: whether `topic` matches.
  bool matches_topic(std::string_view topic);

 private:
  predicate_kind _kind;
  std::regex _pattern;
  std::string _header;
  std::map<std::string, bool, std::less<>> _topics;  // topic -> matches
};

}  // namespace sluice
