#include "connector/config/transform_checks.h"

#include <algorithm>
#include <regex>
#include <set>

#include "connector/config/transform_types.h"

namespace sluice {
namespace {

constexpr std::string_view group = "transforms.<name>";

const found_value* value_of(const walk_result& walk, std::string_view key, std::string_view name) {
  for (const found_value& v : walk.values) {
    if (v.key->name == key && v.name == name) return &v;
  }
  return nullptr;
}

bool is_replace_field(const std::string& type) {
  const auto kind = transform_kind_of(type);
  return std::holds_alternative<transform_kind>(kind) &&
         std::get<transform_kind>(kind) == transform_kind::replace_field;
}

YAML::Mark mark_of(const found_value* v) {
  return v ? v->mark : YAML::Mark::null_mark();
}

// The settings each type reads (after "transforms.<name>.").
bool reads(transform_kind kind, std::string_view setting) {
  if (setting == "type") return true;
  if (kind == transform_kind::regex_router) return setting == "regex" || setting == "replacement";
  return setting == "include" || setting == "exclude" || setting == "whitelist" ||
         setting == "blacklist" || setting == "renames";
}

void check_entry(const std::string& name, const transform_config& t, const found_entry& entry,
                 const walk_result& walk, std::vector<config_error>& errors) {
  const std::string prefix = "transforms." + name + ".";
  if (t.type.empty()) {
    // Given but refused by its own check (unknown, not yet supported): reported there.
    if (value_of(walk, "transforms.<name>.type", name) != nullptr) return;
    errors.push_back(error_at(entry.mark, prefix + "type",
                              "required: RegexRouter or ReplaceField (Connect's class names "
                              "too)"));
    return;
  }
  auto kind = transform_kind_of(t.type);
  if (!std::holds_alternative<transform_kind>(kind)) return;  // reported on the type
  const transform_kind k = std::get<transform_kind>(kind);
  const std::string_view type_name =
      k == transform_kind::regex_router ? "RegexRouter" : "ReplaceField";
  for (const found_value& v : walk.values) {
    if (v.name != name || !v.key->name.starts_with(std::string(group) + ".")) continue;
    const std::string_view setting = v.key->name.substr(group.size() + 1);
    if (!reads(k, setting)) {
      errors.push_back(error_at(v.mark, v.path,
                                "is not a setting of " + std::string(type_name) + " (" +
                                    (k == transform_kind::regex_router
                                         ? "regex, replacement"
                                         : "include, exclude, whitelist, blacklist, renames") +
                                    ")"));
    }
  }
  const auto both = [&](std::string_view a, std::string_view b) {
    const found_value* first = value_of(walk, std::string(group) + "." + std::string(a), name);
    const found_value* second = value_of(walk, std::string(group) + "." + std::string(b), name);
    if (first == nullptr || second == nullptr) return;
    errors.push_back(error_at(second->mark, second->path,
                              std::string(b) + " is Connect 2.x's name for " + std::string(a) +
                                  ", which is given too: give one"));
  };
  if (k == transform_kind::replace_field) {
    both("include", "whitelist");
    both("exclude", "blacklist");
    return;
  }
  const found_value* regex = value_of(walk, "transforms.<name>.regex", name);
  const found_value* replacement = value_of(walk, "transforms.<name>.replacement", name);
  if (regex == nullptr || replacement == nullptr) {
    errors.push_back(error_at(entry.mark, prefix + (regex == nullptr ? "regex" : "replacement"),
                              "required by RegexRouter (the topic's regex and its replacement)"));
    return;
  }
  size_t groups = 0;
  try {
    groups = std::regex(t.regex, std::regex::ECMAScript).mark_count();
  } catch (const std::regex_error&) {
    return;  // reported on the regex
  }
  auto pieces = parse_java_replacement(t.replacement, groups);
  if (auto* why = std::get_if<std::string>(&pieces))
    errors.push_back(error_at(replacement->mark, replacement->path, *why));
}

}  // namespace

void check_transforms(config& c, const walk_result& walk, std::vector<config_error>& errors) {
  std::vector<const found_entry*> entries;  // once each, in file order
  for (const found_entry& e : walk.entries) {
    if (e.group != group) continue;
    if (std::none_of(entries.begin(), entries.end(),
                     [&](const found_entry* seen) { return seen->name == e.name; }))
      entries.push_back(&e);
  }
  const found_value* list = value_of(walk, "transforms", "");
  if (list == nullptr) {
    c.transforms.clear();
    for (const found_entry* e : entries)
      c.transforms.push_back(e->name);
  } else {
    std::set<std::string> listed;
    for (const std::string& name : c.transforms) {
      if (!listed.insert(name).second) {
        errors.push_back(error_at(list->mark, "transforms", name + " is listed twice"));
      } else if (!c.transform_settings.contains(name)) {
        errors.push_back(error_at(list->mark, "transforms",
                                  name + " has no settings: give transforms." + name + ".type"));
      }
    }
    for (const found_entry* e : entries) {
      if (!listed.contains(e->name)) {
        errors.push_back(error_at(e->mark, e->path,
                                  "is not in the transforms list: it would never run (add it "
                                  "there, or remove it)"));
      }
    }
  }
  for (const found_entry* e : entries)
    check_entry(e->name, c.transform_settings[e->name], *e, walk, errors);
}

void check_excluded_keys(const config& c, const walk_result& walk,
                         std::vector<config_error>& errors) {
  // The configured key columns: of one source table, or of every table of a topic (source "").
  std::vector<std::pair<std::string, std::vector<std::string>>> keys;
  for (const auto& [source, t] : c.tables) {
    if (!t.primary_key_fields.empty()) keys.emplace_back(source, t.primary_key_fields);
  }
  for (const auto& [topic, o] : c.topic_overrides) {
    if (!o.primary_key_fields.empty()) keys.emplace_back("", o.primary_key_fields);
  }
  const auto refuse = [&](const found_value* at, const std::string& column,
                          const std::string& source) {
    errors.push_back(error_at(mark_of(at), at ? at->path : std::string(),
                              "excludes " + column + ", a key column" +
                                  (source.empty() ? std::string(" configured") : " of " + source) +
                                  " (primary.key.fields): a key column cannot be left out"));
  };
  for (auto& [source, columns] : keys) {
    for (std::string column : columns) {
      // Through the ReplaceFields in order: each excludes by the names it is given.
      bool refused = false;
      for (const std::string& name : c.transforms) {
        const auto t = c.transform_settings.find(name);
        if (t == c.transform_settings.end()) break;
        if (!is_replace_field(t->second.type)) continue;
        for (std::string_view setting : {"exclude", "blacklist"}) {
          const auto& list = setting == "exclude" ? t->second.exclude : t->second.blacklist;
          if (!refused && std::find(list.begin(), list.end(), column) != list.end()) {
            refuse(value_of(walk, "transforms.<name>." + std::string(setting), name), column,
                   source);
            refused = true;
          }
        }
        for (const std::string& entry : t->second.renames) {
          auto pair = parse_rename(entry);
          if (auto* p = std::get_if<std::pair<std::string, std::string>>(&pair);
              p && p->first == column) {
            column = p->second;
            break;
          }
        }
      }
      if (refused) continue;
      // Then fields.*: the global `field` entries and the table's own.
      const auto& global = c.fields.exclude;
      if (std::find(global.begin(), global.end(), column) != global.end()) {
        refuse(value_of(walk, "fields.exclude", ""), column, source);
        continue;
      }
      const auto table = source.empty() ? c.tables.end() : c.tables.find(source);
      if (table == c.tables.end()) continue;
      const auto& own = table->second.fields.exclude;
      if (std::find(own.begin(), own.end(), column) != own.end())
        refuse(value_of(walk, "tables.<source>.fields.exclude", source), column, source);
    }
  }
}

}  // namespace sluice
