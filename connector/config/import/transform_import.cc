#include "connector/config/import/transform_import.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "connector/config/transform_types.h"

namespace sluice {
namespace {

// Why transforms.<name> cannot be written as sluice's transform ("" when it can): its type, an
// option sluice's transform does not have (a predicate among them), a regex or replacement
// std::regex cannot run as Java would. The loader's own rules (transform_types.h), so that what
// the importer writes loads.
std::string transform_gap(const std::string& type, const std::map<std::string, std::string>& o) {
  auto kind = transform_kind_of(type);
  if (auto* why = std::get_if<std::string>(&kind)) return *why;
  const bool router = std::get<transform_kind>(kind) == transform_kind::regex_router;
  const std::set<std::string> known =
      router ? std::set<std::string>{"regex", "replacement"}
             : std::set<std::string>{"include", "exclude", "whitelist", "blacklist", "renames"};
  for (const auto& [option, value] : o) {
    if (option == "predicate" || option == "negate")
      return "a transform applied under a predicate (" + option + "=" + value +
             "): predicates come with issue 30";
    if (!known.contains(option)) return "option " + option + " is not one sluice's transform has";
  }
  if (!router) {
    if (auto it = o.find("renames"); it != o.end()) {
      for (const std::string& entry : split_list(it->second)) {
        auto pair = parse_rename(entry);
        if (auto* why = std::get_if<std::string>(&pair)) return "renames: " + *why;
      }
    }
    return "";
  }
  const auto regex = o.find("regex");
  if (regex == o.end() || regex->second.empty()) return "no regex";
  if (std::string why = regex_error_text(regex->second); !why.empty()) return "regex " + why;
  const std::regex compiled(regex->second, std::regex::ECMAScript);
  const auto replacement = o.find("replacement");
  auto pieces = parse_java_replacement(replacement == o.end() ? "" : replacement->second,
                                       compiled.mark_count());
  if (auto* why = std::get_if<std::string>(&pieces)) return "replacement " + *why;
  return "";
}

}  // namespace

// transforms: RegexRouter and ReplaceField$Value become sluice's transforms of the same names
// and options, in the chain's order; ExtractNewRecordState as Debezium documents it is not
// needed (sluice reads the envelope); any other is listed, the rest of the chain still mapped.
void map_transforms(mapper& m, const connect_config& c) {
  const auto chain = m.take({"transforms"});
  if (!chain) return;
  std::vector<std::string> names;
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
    const bool unwrap = type == "io.debezium.transforms.ExtractNewRecordState";
    const bool plain_unwrap =
        unwrap && std::all_of(options.begin(), options.end(),
                              [](const auto& o) { return o.first == "drop.tombstones"; });
    if (plain_unwrap) continue;  // sluice reads the Debezium envelope itself
    if (std::string why = unwrap ? "ExtractNewRecordState's options come with issue 30 (the "
                                   "envelope itself needs no transform)"
                                 : transform_gap(type, options);
        !why.empty()) {
      m.left_out("transforms." + name + " (" + type + ")", why);
      continue;
    }
    names.push_back(name);
    lines += "# transforms." + name + ".type\n" + prefix + "type: " + quoted(type) + "\n";
    for (const auto& [option, value] : options) {
      const bool list = option != "regex" && option != "replacement";
      lines += "# transforms." + name + "." + option + "\n" + prefix + option + ": " +
               (list ? yaml_list(split_list(value)) : quoted(value)) + "\n";
    }
  }
  if (!names.empty()) m.block("transforms", yaml_list(names), chain->first, lines);
  for (const auto& [k, v] : c.entries) {
    if (k.starts_with("predicates")) {
      m.mark(k);
      m.left_out(key_value(k, v), "predicates come with issue 30");
    }
  }
}

}  // namespace sluice
