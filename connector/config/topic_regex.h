#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace sluice {

// topics.regex as a subscription reads it: a POSIX extended regular expression matched from
// the start of a topic name (librdkafka implies the `^`).
//
// RE2 (libre2), not std::regex: libstdc++'s matcher backtracks, and a pattern such as
// "^cdc*****…\..*" held fuzz_config for over 10 s on one short topic name; RE2 matches in time
// linear in the name and bounds the memory a pattern may compile to ((a{255}){255}… is
// refused, where glibc's regcomp took 270 MB). Back-references are refused too.
class topic_regex {
 public:
  // Throws std::invalid_argument with RE2's words when the pattern does not compile.
  explicit topic_regex(const std::string& pattern);
  ~topic_regex();
  topic_regex(topic_regex&&) noexcept;
  topic_regex& operator=(topic_regex&&) noexcept;

  // Whether the topic's name matches from its start.
  bool matches(std::string_view topic) const;

  // "" when `pattern` compiles, else why not.
  static std::string problem(const std::string& pattern);

 private:
  std::unique_ptr<re2::RE2> _re;
};

}  // namespace sluice
