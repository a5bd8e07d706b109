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
  if (setting == "type" || setting == "predicate" || setting == "negate") return true;
  const auto settings = transform_settings_of(kind);
  return std::find(settings.begin(), settings.end(), setting) != settings.end();
}

std::string settings_text(transform_kind kind) {
  std::string out;
  for (std::string_view s : transform_settings_of(kind))
    out += (out.empty() ? "" : ", ") + std::string(s);
  return out.empty() ? std::string("none but predicate and negate") : out;
}

// A replacement's $n must name a group of its regex (a regex that does not compile is
// reported on itself).
void check_replacement(const std::string& regex, const std::string& replacement,
                       const found_value* at, std::vector<config_error>& errors) {
  if (at == nullptr) return;
  size_t groups = 0;
  try {
    groups = std::regex(regex, std::regex::ECMAScript).mark_count();
  } catch (const std::regex_error&) {
    return;
  }
  auto pieces = parse_java_replacement(replacement, groups);
  if (auto* why = std::get_if<std::string>(&pieces))
    errors.push_back(error_at(at->mark, at->path, *why));
}

// ByLogicalTableRouter, as Debezium validates it: both replacements against their regexes,
// and key.field.replacement not empty where key.field.regex is given.
void check_logical_router(const std::string& name, const transform_config& t,
                          const walk_result& walk, std::vector<config_error>& errors) {
  check_replacement(t.topic_regex, t.topic_replacement,
                    value_of(walk, "transforms.<name>.topic.replacement", name), errors);
  const auto blank = [](const std::string& s) {
    return s.find_first_not_of(" \t") == std::string::npos;
  };
  if (blank(t.key_field_regex)) return;
  const found_value* replacement = value_of(walk, "transforms.<name>.key.field.replacement", name);
  if (blank(t.key_field_replacement)) {
    const found_value* regex = value_of(walk, "transforms.<name>.key.field.regex", name);
    errors.push_back(error_at(mark_of(regex ? regex : replacement),
                              "transforms." + name + ".key.field.replacement",
                              "must be non-empty if key.field.regex is set (Debezium's rule)"));
    return;
  }
  check_replacement(t.key_field_regex, t.key_field_replacement, replacement, errors);
}

void check_entry(const std::string& name, const transform_config& t, const found_entry& entry,
                 const walk_result& walk, std::vector<config_error>& errors) {
  const std::string prefix = "transforms." + name + ".";
  if (t.type.empty()) {
    // Given but refused by its own check (unknown, not yet supported): reported there.
    if (value_of(walk, "transforms.<name>.type", name) != nullptr) return;
    errors.push_back(error_at(entry.mark, prefix + "type",
                              "required: the transform's type (RegexRouter, ReplaceField, "
                              "Filter, ..., or Connect's class names)"));
    return;
  }
  auto kind = transform_kind_of(t.type);
  if (!std::holds_alternative<transform_kind>(kind)) return;  // reported on the type
  const transform_kind k = std::get<transform_kind>(kind);
  const std::string type_name(transform_name(k));
  for (const found_value& v : walk.values) {
    if (v.name != name || !v.key->name.starts_with(std::string(group) + ".")) continue;
    const std::string_view setting = v.key->name.substr(group.size() + 1);
    if (!reads(k, setting)) {
      errors.push_back(error_at(
          v.mark, v.path, "is not a setting of " + type_name + " (" + settings_text(k) + ")"));
    }
  }
  if (k != transform_kind::regex_router) {
    for (std::string_view setting : transform_required_settings(k)) {
      if (value_of(walk, std::string(group) + "." + std::string(setting), name) == nullptr) {
        errors.push_back(
            error_at(entry.mark, prefix + std::string(setting), "required by " + type_name));
      }
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
  }
  if (k == transform_kind::by_logical_table_router) {
    check_logical_router(name, t, walk, errors);
    return;
  }
  if (k != transform_kind::regex_router) return;
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
  // A predicate named must be configured, with what its type reads; a RegexRouter or a
  // ByLogicalTableRouter, which rename topics, only under TopicNameMatches.
  for (const found_entry* e : entries) {
    const transform_config& t = c.transform_settings[e->name];
    if (t.predicate.empty()) continue;
    const found_value* at = value_of(walk, "transforms.<name>.predicate", e->name);
    const auto p = c.predicate_settings.find(t.predicate);
    if (p == c.predicate_settings.end()) {
      errors.push_back(error_at(mark_of(at), at ? at->path : e->path,
                                "names no predicate: give predicates." + t.predicate + ".type"));
      continue;
    }
    const auto kind = predicate_kind_of(p->second.type);
    if (!std::holds_alternative<predicate_kind>(kind)) continue;  // reported on the type
    const predicate_kind k = std::get<predicate_kind>(kind);
    const auto tk = transform_kind_of(t.type);
    if (!std::holds_alternative<transform_kind>(tk) || k == predicate_kind::topic_name_matches)
      continue;
    const transform_kind router = std::get<transform_kind>(tk);
    if (router == transform_kind::regex_router ||
        router == transform_kind::by_logical_table_router) {
      errors.push_back(error_at(mark_of(at), at ? at->path : e->path,
                                "a " + std::string(transform_name(router)) +
                                    " runs on topics: only under a TopicNameMatches predicate"));
    }
  }
  for (const auto& [name, p] : c.predicate_settings) {
    const auto kind = predicate_kind_of(p.type);
    if (!std::holds_alternative<predicate_kind>(kind)) continue;
    const predicate_kind k = std::get<predicate_kind>(kind);
    if (k == predicate_kind::topic_name_matches && p.pattern.empty())
      errors.push_back(error_at(YAML::Mark::null_mark(), "predicates." + name + ".pattern",
                                "required by TopicNameMatches"));
    if (k == predicate_kind::has_header_key && p.name.empty())
      errors.push_back(error_at(YAML::Mark::null_mark(), "predicates." + name + ".name",
                                "required by HasHeaderKey"));
  }
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
