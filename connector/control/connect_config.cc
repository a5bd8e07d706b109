#include "connector/control/connect_config.h"

#include <string_view>

namespace sluice {
namespace {

std::string_view trim_quotes(std::string_view v) {
  if (v.size() >= 2 &&
      ((v.front() == '"' && v.back() == '"') || (v.front() == '\'' && v.back() == '\''))) {
    v = v.substr(1, v.size() - 2);
  }
  return v;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> connect_config(const config& c) {
  std::vector<std::pair<std::string, std::string>> out = {
      {"name", c.name},
      {"connector.class", "sluice"},
      {"tasks.max", std::to_string(c.apply_lanes)},
  };
  // describe() writes YAML two levels deep at most: `key: value`, `group:` then `  name:`
  // then `    setting: value`, or `  name: value` (kafka). Flattened by indentation.
  const std::string text = describe(c);
  std::string top, middle;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + at, end - at);
    at = end + 1;
    const size_t indent = line.find_first_not_of(' ');
    if (indent == std::string_view::npos) continue;
    line.remove_prefix(indent);
    const size_t colon = line.find(": ");
    const bool opens = colon == std::string_view::npos && line.ends_with(':');
    const std::string key(
        trim_quotes(opens ? line.substr(0, line.size() - 1) : line.substr(0, colon)));
    if (opens) {
      (indent == 0 ? top : middle) = key;
      if (indent == 0) middle.clear();
      continue;
    }
    if (colon == std::string_view::npos) continue;
    std::string value(trim_quotes(line.substr(colon + 2)));
    // A YAML flow list ([a, b]) as Connect writes lists: comma-separated.
    if (value.size() >= 2 && value.front() == '[' && value.back() == ']') {
      std::string list;
      for (char ch : std::string_view(value).substr(1, value.size() - 2))
        if (ch != ' ') list.push_back(ch);
      value = list;
    }
    std::string name = indent == 0   ? key
                       : indent == 2 ? top + "." + key
                                     : top + "." + middle + "." + key;
    if (name == "name") continue;
    out.emplace_back(std::move(name), value);
  }
  return out;
}

}  // namespace sluice
