#include "connector/prepare/transforms/regex_router.h"

namespace sluice {

std::variant<regex_router, std::string> regex_router::compile(std::string_view regex,
                                                              std::string_view replacement) {
  if (std::string why = regex_error_text(regex); !why.empty()) return "regex " + why;
  std::regex compiled;
  try {
    compiled = std::regex(regex.begin(), regex.end(), std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return std::string("regex is not a valid regular expression (ECMAScript): ") + e.what();
  }
  auto pieces = parse_java_replacement(replacement, compiled.mark_count());
  if (auto* why = std::get_if<std::string>(&pieces)) return "replacement: " + *why;
  return regex_router(std::move(compiled), std::get<std::vector<replacement_piece>>(pieces));
}

std::string regex_router::route(std::string_view topic) const {
  std::optional<std::string> renamed = rename(topic);
  return renamed ? std::move(*renamed) : std::string(topic);
}

std::optional<std::string> regex_router::rename(std::string_view topic) const {
  std::match_results<std::string_view::const_iterator> m;
  // regex_match: the whole topic, as Java's matches() (regex_search would rename on a part).
  if (!std::regex_match(topic.begin(), topic.end(), m, _regex)) return std::nullopt;
  std::string out;
  for (const replacement_piece& p : _replacement) {
    if (p.group < 0) {
      out += p.literal;
    } else if (m[static_cast<size_t>(p.group)].matched) {
      out += m[static_cast<size_t>(p.group)].str();  // an unmatched group adds nothing (Java)
    }
  }
  return out;
}

}  // namespace sluice
