#include "connector/config/import/transform_import.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "connector/config/transform_types.h"

namespace sluice {
namespace {

// The settings whose Connect value is a list (ConfigDef.Type.LIST), written as YAML lists.
constexpr std::string_view list_settings[] = {"include", "exclude", "whitelist", "blacklist",
                                              "renames", "fields",  "spec",      "add.fields"};

bool is_list(std::string_view setting) {
  return std::find(std::begin(list_settings), std::end(list_settings), setting) !=
         std::end(list_settings);
}

// The connector's predicates (`predicates`, predicates.<name>.*) sluice runs: name -> kind;
// the others listed with why. Its lines are written beside the transforms that use them.
struct predicates {
  std::map<std::string, predicate_kind> kinds;
  std::map<std::string, std::map<std::string, std::string>> options;
};

predicates read_predicates(mapper& m, const connect_config& c) {
  predicates out;
  const auto list = m.take({"predicates"});
  std::set<std::string> listed;
  if (list) {
    for (const std::string& name : split_list(list->second))
      listed.insert(name);
  }
  std::map<std::string, std::map<std::string, std::string>> given;
  for (const auto& [k, v] : c.entries) {
    if (!k.starts_with("predicates.")) continue;
    m.mark(k);
    const std::string rest = k.substr(std::string_view("predicates.").size());
    const size_t dot = rest.find('.');
    if (dot == std::string::npos) {
      m.left_out(key_value(k, v), "not a predicate setting (predicates.<name>.<setting>)");
      continue;
    }
    given[rest.substr(0, dot)].emplace(rest.substr(dot + 1), v);
  }
  for (auto& [name, o] : given) {
    const std::string prefix = "predicates." + name;
    if (!listed.contains(name)) {
      m.left_out(prefix, "not in the predicates list: Connect would not configure it");
      continue;
    }
    auto kind = predicate_kind_of(o.contains("type") ? o.at("type") : "");
    if (auto* why = std::get_if<std::string>(&kind)) {
      m.left_out(prefix, *why);
      continue;
    }
    const predicate_kind k = std::get<predicate_kind>(kind);
    const std::string_view reads = k == predicate_kind::topic_name_matches ? "pattern"
                                   : k == predicate_kind::has_header_key   ? "name"
                                                                           : "";
    std::string why;
    for (const auto& [option, value] : o) {
      if (option != "type" && option != reads)
        why = "option " + option + " is not one " + o.at("type") + " has";
    }
    if (!reads.empty() && (!o.contains(std::string(reads)) || o.at(std::string(reads)).empty()))
      why = "no " + std::string(reads);
    if (k == predicate_kind::topic_name_matches && why.empty()) {
      if (std::string bad = regex_error_text(o.at("pattern")); !bad.empty()) why = "pattern " + bad;
    }
    if (!why.empty()) {
      m.left_out(prefix, why);
      continue;
    }
    out.kinds.emplace(name, k);
    out.options.emplace(name, std::move(o));
  }
  return out;
}

// Why transforms.<name> cannot be written as sluice's transform ("" when it can): its type, an
// option sluice's transform does not read, a predicate sluice does not run (or, for a
// RegexRouter, one that is not on topics), a regex or replacement std::regex cannot run as Java
// would. The loader's own rules and settings table (transform_types.h), so that what the
// importer writes loads.
std::string transform_gap(const std::string& type, const std::map<std::string, std::string>& o,
                          const predicates& p) {
  auto kind = transform_kind_of(type);
  if (auto* why = std::get_if<std::string>(&kind)) return *why;
  const transform_kind k = std::get<transform_kind>(kind);
  const auto settings = transform_settings_of(k);
  for (const auto& [option, value] : o) {
    if (option == "negate") {
      if (value != "true" && value != "false") return "negate=" + value + " is not a boolean";
      continue;
    }
    if (option == "predicate") {
      const auto found = p.kinds.find(value);
      if (found == p.kinds.end())
        return "its predicate " + value + " is not one sluice runs (listed above)";
      const bool on_topics =
          k == transform_kind::regex_router || k == transform_kind::by_logical_table_router;
      if (on_topics && found->second != predicate_kind::topic_name_matches)
        return "a " + std::string(transform_name(k)) +
               " runs on topics: sluice runs it under TopicNameMatches only";
      continue;
    }
    if (std::find(settings.begin(), settings.end(), option) == settings.end())
      return "option " + option + " is not one sluice's " + std::string(transform_name(k)) + " has";
  }
  for (std::string_view required : transform_required_settings(k)) {
    if (!o.contains(std::string(required))) return "no " + std::string(required);
  }
  if (k == transform_kind::replace_field) {
    if (auto it = o.find("renames"); it != o.end()) {
      for (const std::string& entry : split_list(it->second)) {
        auto pair = parse_rename(entry);
        if (auto* why = std::get_if<std::string>(&pair)) return "renames: " + *why;
      }
    }
  }
  // A regex and its replacement, as the loader checks them (std::regex must run it as Java).
  const auto pair = [&](const std::string& regex_key,
                        const std::string& replacement_key) -> std::string {
    const auto regex = o.find(regex_key);
    if (regex == o.end()) return "";
    if (regex->second.empty()) return "no " + regex_key;
    if (std::string why = regex_error_text(regex->second); !why.empty())
      return regex_key + " " + why;
    const std::regex compiled(regex->second, std::regex::ECMAScript);
    const auto replacement = o.find(replacement_key);
    auto pieces = parse_java_replacement(replacement == o.end() ? "" : replacement->second,
                                         compiled.mark_count());
    if (auto* why = std::get_if<std::string>(&pieces)) return replacement_key + " " + *why;
    return "";
  };
  if (k == transform_kind::regex_router) return pair("regex", "replacement");
  if (k != transform_kind::by_logical_table_router) return "";
  if (std::string why = pair("topic.regex", "topic.replacement"); !why.empty()) return why;
  if (o.contains("key.field.regex") &&
      (!o.contains("key.field.replacement") || o.at("key.field.replacement").empty()))
    return "key.field.replacement must be non-empty if key.field.regex is set (Debezium's rule)";
  return pair("key.field.regex", "key.field.replacement");
}

}  // namespace

// transforms: the transforms sluice runs become sluice's transforms of the same names and
// options, in the chain's order, with the predicates they use; ExtractNewRecordState without
// options is not needed (sluice reads the envelope); any other is listed, the rest of the
// chain still mapped.
void map_transforms(mapper& m, const connect_config& c) {
  const predicates p = read_predicates(m, c);
  const auto chain = m.take({"transforms"});
  if (!chain) {
    for (const auto& [name, kind] : p.kinds)
      m.left_out("predicates." + name, "no transform uses it");
    return;
  }
  std::vector<std::string> names;
  std::set<std::string> used;
  std::string lines;
  for (const std::string& name : split_list(chain->second)) {
    const std::string prefix = "transforms." + name + ".";
    std::string type;
    std::map<std::string, std::string> options;
    for (const auto& [k, v] : c.entries) {
      if (!k.starts_with(prefix)) continue;
      m.mark(k);
      if (k == prefix + "type") {
        type = v;
      } else {
        options.emplace(k.substr(prefix.size()), v);
      }
    }
    // ExtractNewRecordState without options needs nothing (sluice reads the envelope) and,
    // as in Debezium 3.x, changes nothing; its options are mapped as the others'.
    if (type == "io.debezium.transforms.ExtractNewRecordState" && options.empty()) continue;
    if (std::string why = transform_gap(type, options, p); !why.empty()) {
      m.left_out("transforms." + name + " (" + type + ")", why);
      continue;
    }
    names.push_back(name);
    lines += "# transforms." + name + ".type\n" + prefix + "type: " + quoted(type) + "\n";
    for (const auto& [option, value] : options) {
      if (option == "predicate") used.insert(value);
      lines += "# transforms." + name + "." + option + "\n" + prefix + option + ": " +
               (is_list(option)      ? yaml_list(split_list(value))
                : option == "negate" ? value
                                     : quoted(value)) +
               "\n";
    }
  }
  if (!names.empty()) m.block("transforms", yaml_list(names), chain->first, lines);
  std::vector<std::string> written;
  std::string predicate_lines;
  for (const auto& [name, options] : p.options) {
    if (!used.contains(name)) {
      m.left_out("predicates." + name, "no transform sluice runs uses it");
      continue;
    }
    written.push_back(name);
    for (const auto& [option, value] : options) {
      predicate_lines += "# predicates." + name + "." + option + "\npredicates." + name + "." +
                         option + ": " + quoted(value) + "\n";
    }
  }
  if (!written.empty()) m.block("predicates", yaml_list(written), "predicates", predicate_lines);
}

}  // namespace sluice
