#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "connector/config/transform_types.h"

namespace sluice {

// Kafka Connect's RegexRouter (transforms.<name>.type: RegexRouter): a topic the regex matches
// whole (Java's Matcher.matches()) becomes the replacement, its $1, $2... the groups' text; any
// other topic stays as it is. The renamed topic is the one ${topic} in table.name.format routes
// by and fields' topic:field entries name (SPEC §6a "Transforms").
//
// The regex is a std::regex ECMAScript expression: Java's syntax but for lookbehind, named
// groups, possessive quantifiers and \p{...} classes, which it refuses at load.
//
// Lifecycle: compiled once from the configuration. Threading: route() is const and reentrant;
// callers cache its answers per topic (transform_chain), so it runs once per topic.
class regex_router {
 public:
  // The router, or why the regex or replacement cannot be one (the loader checked both).
  static std::variant<regex_router, std::string> compile(std::string_view regex,
                                                         std::string_view replacement);

  std::string route(std::string_view topic) const;
  // The replacement where the regex matches the topic whole; nothing where it does not.
  std::optional<std::string> rename(std::string_view topic) const;

 private:
  regex_router(std::regex regex, std::vector<replacement_piece> replacement)
      : _regex(std::move(regex)), _replacement(std::move(replacement)) {}

  std::regex _regex;
  std::vector<replacement_piece> _replacement;
};

}  // namespace sluice
