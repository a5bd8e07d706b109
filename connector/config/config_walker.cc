#include "connector/config/config_walker.h"

#include <algorithm>
#include <map>
#include <optional>

#include "connector/config/did_you_mean.h"

namespace sluice {
namespace {

std::string join(std::string_view prefix, std::string_view segment) {
  if (prefix.empty()) return std::string(segment);
  return std::string(prefix) + "." + std::string(segment);
}

// A user-chosen name shown in a path: quoted when it holds a dot or a space.
std::string show_name(std::string_view name) {
  if (name.find_first_of(". \t\"") == std::string_view::npos && !name.empty()) {
    return std::string(name);
  }
  std::string out = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

std::string_view kind_of(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Null:
      return "no value";
    default:
      return "a scalar";
  }
}

// Whether some key lies below `pattern`.
bool is_section(std::string_view pattern) {
  const std::string prefix = std::string(pattern) + ".";
  for (const auto& k : config_keys()) {
    if (k.name.starts_with(prefix)) return true;
  }
  return false;
}

// The user-named segment ("<source>") that follows `pattern` in some key, if any.
std::optional<std::string_view> name_segment_after(std::string_view pattern) {
  const std::string prefix = std::string(pattern) + ".<";
  for (const auto& k : config_keys()) {
    if (k.name.starts_with(prefix)) {
      const std::string_view rest = k.name.substr(pattern.size() + 1);
      return rest.substr(0, rest.find('>') + 1);
    }
  }
  return std::nullopt;
}

// The keys directly below `pattern`, for "expected a map of postgres.* keys (dsn, ...)".
std::string children_of(std::string_view pattern) {
  const std::string prefix = std::string(pattern) + ".";
  std::string out;
  for (const auto& k : config_keys()) {
    if (!k.name.starts_with(prefix)) continue;
    if (!out.empty()) out += ", ";
    out += k.name.substr(prefix.size());
  }
  return out;
}

class walker {
 public:
  walk_result run(const YAML::Node& root) {
    walk_map(root, "", "");
    return std::move(_result);
  }

 private:
  void walk_map(const YAML::Node& map, const std::string& pattern, const std::string& path,
                const std::string& name = "") {
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first;  // a copy: it-> yields a temporary
      const YAML::Node value = it->second;
      if (!key.IsScalar()) {
        error(key.Mark(), path, "a key must be a string, got " + std::string(kind_of(key)));
        continue;
      }
      const std::string& text = key.Scalar();
      // A fixed key beside user-named entries (tables.include beside tables.<source>) wins:
      // a source table of that bare name is named qualified instead.
      auto segment = name_segment_after(pattern);
      if (segment && !find_config_key(join(pattern, text))) {
        walk_entry(key, value, join(pattern, *segment), join(path, show_name(text)), text);
      } else {
        walk_key(key, value, join(pattern, text), join(path, text), name);
      }
    }
  }

  // One entry of tables / topic.overrides: its own map of keys.
  void walk_entry(const YAML::Node& key, const YAML::Node& value, const std::string& group,
                  const std::string& path, const std::string& name) {
    if (!first_time(path, key.Mark())) return;
    _result.entries.push_back({group, name, path, key.Mark()});
    if (value.IsNull()) return;
    if (!value.IsMap()) {
      error(mark_of(value, key), path,
            "expected a map of " + group + ".* keys (" + children_of(group) + "), got " +
                std::string(kind_of(value)));
      return;
    }
    walk_map(value, group, path, name);
  }

  void walk_key(const YAML::Node& key, const YAML::Node& value, const std::string& pattern,
                const std::string& path, const std::string& name) {
    const config_key* leaf = find_config_key(pattern);
    const bool section = is_section(pattern);
    if (leaf != nullptr && (!section || !value.IsMap() || leaf->type == value_type::string_map)) {
      if (first_time(path, key.Mark())) {
        _result.values.push_back({leaf, name, path, value, mark_of(value, key)});
      }
    } else if (section && value.IsMap()) {
      walk_map(value, pattern, path, name);
    } else if (section && value.IsNull()) {
      // An empty section sets nothing.
    } else if (section) {
      error(mark_of(value, key), path,
            "expected a map of " + pattern + ".* keys (" + children_of(pattern) + "), got " +
                std::string(kind_of(value)));
    } else if (auto flat = flat_entry(pattern)) {
      // Connect's spelling, transforms.route.type: the entry named inline.
      const std::string group = std::string(flat->group);
      const bool known = std::any_of(
          _result.entries.begin(), _result.entries.end(),
          [&](const found_entry& e) { return e.group == group && e.name == flat->name; });
      if (!known) {
        _result.entries.push_back(
            {group, flat->name, join(group.substr(0, group.find(".<")), flat->name), key.Mark()});
      }
      walk_key(key, value, flat->pattern, path, flat->name);
    } else {
      unknown(key, pattern, path);
    }
  }

  struct flat_key {
    std::string_view group;  // "transforms.<name>"
    std::string name;        // "route"
    std::string pattern;     // "transforms.<name>.type"
  };
  // A key of a group whose entry names are one segment, written flat: the name is the segment
  // after the group's prefix. Only such groups: a source table's name holds dots.
  static std::optional<flat_key> flat_entry(std::string_view pattern) {
    static constexpr std::string_view flat_groups[] = {"transforms.<name>", "predicates.<name>"};
    for (std::string_view group : flat_groups) {
      const std::string_view prefix = group.substr(0, group.find('<'));
      if (!pattern.starts_with(prefix)) continue;
      const std::string_view rest = pattern.substr(prefix.size());
      const size_t dot = rest.find('.');
      if (dot == 0 || dot == std::string_view::npos) continue;
      std::string key_pattern = std::string(group) + std::string(rest.substr(dot));
      if (find_config_key(key_pattern) == nullptr) continue;
      return flat_key{group, std::string(rest.substr(0, dot)), std::move(key_pattern)};
    }
    return std::nullopt;
  }

  void unknown(const YAML::Node& key, const std::string& pattern, const std::string& path) {
    for (const auto& k : config_keys()) {
      if (k.type == value_type::string_map && !k.under_name() &&
          pattern.starts_with(std::string(k.name) + ".")) {
        error(key.Mark(), path,
              "unknown key; the entries of " + std::string(k.name) + " go in its map: " +
                  std::string(k.name) + ": {" + pattern.substr(k.name.size() + 1) + ": ...}");
        return;
      }
    }
    std::vector<std::string_view> names;
    for (const auto& k : config_keys())
      names.push_back(k.name);
    std::string message = "unknown key";
    if (auto near = closest_match(pattern, names)) {
      message += "; did you mean " + suggestion(*near, pattern, path) + "?";
    }
    error(key.Mark(), path, message);
  }

  // `near` as the user would write it: with the user's names in place of <segments> when the
  // unknown path shares them.
  static std::string suggestion(std::string_view near, std::string_view pattern,
                                std::string_view path) {
    const std::size_t segment_end = near.rfind('>');
    if (segment_end == std::string_view::npos) return std::string(near);
    const std::string_view near_prefix = near.substr(0, segment_end + 1);
    if (!pattern.starts_with(near_prefix)) return std::string(near);
    const std::size_t tail = pattern.size() - near_prefix.size();
    return std::string(path.substr(0, path.size() - tail)) +
           std::string(near.substr(segment_end + 1));
  }

  bool first_time(const std::string& path, const YAML::Mark& mark) {
    auto [it, inserted] = _seen.emplace(path, mark);
    if (!inserted) {
      error(mark, path, "given twice (first at line " + std::to_string(it->second.line + 1) + ")");
    }
    return inserted;
  }

  static YAML::Mark mark_of(const YAML::Node& value, const YAML::Node& key) {
    const YAML::Mark m = value.Mark();
    return m.is_null() || value.IsNull() ? key.Mark() : m;
  }

  void error(const YAML::Mark& mark, const std::string& path, std::string message) {
    _result.errors.push_back(error_at(mark, path, std::move(message)));
  }

  walk_result _result;
  std::map<std::string, YAML::Mark> _seen;  // path -> where it was first given
};

}  // namespace

walk_result walk_config(const YAML::Node& root) {
  return walker().run(root);
}

config_error error_at(const YAML::Mark& mark, std::string key, std::string message) {
  config_error e;
  e.key = std::move(key);
  e.message = std::move(message);
  if (!mark.is_null()) {
    e.line = mark.line + 1;
    e.column = mark.column + 1;
  }
  return e;
}

}  // namespace sluice
