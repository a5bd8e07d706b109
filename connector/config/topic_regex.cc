#include "connector/config/topic_regex.h"

#include <re2/re2.h>

#include <stdexcept>

namespace sluice {
namespace {

// POSIX egrep syntax (no Perl classes, no \d), leftmost-longest, errors kept rather than
// logged to stderr; 1 MiB of compiled program at most (RE2's default is 8).
RE2::Options posix_options() {
  RE2::Options o;
  o.set_posix_syntax(true);
  o.set_longest_match(true);
  o.set_one_line(true);  // ^ and $ at the name's ends only
  o.set_log_errors(false);
  o.set_max_mem(1 << 20);
  return o;
}

std::unique_ptr<re2::RE2> compile(const std::string& pattern) {
  // Anchored at the name's start, as librdkafka's subscription is; the group keeps an
  // alternation ("a|b") anchored as a whole (egrep syntax has no non-capturing group).
  return std::make_unique<re2::RE2>("^(" + pattern + ")", posix_options());
}

}  // namespace

topic_regex::topic_regex(const std::string& pattern) : _re(compile(pattern)) {
  if (!_re->ok()) throw std::invalid_argument(_re->error());
}

topic_regex::~topic_regex() = default;
topic_regex::topic_regex(topic_regex&&) noexcept = default;
topic_regex& topic_regex::operator=(topic_regex&&) noexcept = default;

bool topic_regex::matches(std::string_view topic) const {
  return RE2::PartialMatch(re2::StringPiece(topic.data(), topic.size()), *_re);
}

std::string topic_regex::problem(const std::string& pattern) {
  const auto re = compile(pattern);
  return re->ok() ? "" : re->error();
}

}  // namespace sluice
