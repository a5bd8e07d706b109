#include "connector/config/transform_types.h"

#include <regex>

namespace sluice {
namespace {

constexpr std::string_view connect_package = "org.apache.kafka.connect.transforms.";

// Debezium's own transforms live in its package, not Connect's.
constexpr std::string_view debezium_package = "io.debezium.transforms.";
constexpr std::string_view debezium_types[] = {"ExtractNewRecordState", "ByLogicalTableRouter"};

struct kind_entry {
  transform_kind kind;
  std::string_view name;
  bool has_value_variant;  // Connect names it Name$Value (and Name$Key, which sluice refuses)
  std::span<const std::string_view> settings;
  std::span<const std::string_view> required;
};

constexpr std::string_view router_settings[] = {"regex", "replacement"};
constexpr std::string_view replace_settings[] = {"include", "exclude", "whitelist", "blacklist",
                                                 "renames"};
constexpr std::string_view insert_settings[] = {"topic.field",  "partition.field",
                                                "offset.field", "timestamp.field",
                                                "static.field", "static.value"};
constexpr std::string_view mask_settings[] = {"fields", "replacement"};
constexpr std::string_view converter_settings[] = {"field", "target.type", "format",
                                                   "unix.precision"};
constexpr std::string_view converter_required[] = {"field", "target.type"};
constexpr std::string_view cast_settings[] = {"spec"};
constexpr std::string_view key_settings[] = {"fields"};
constexpr std::string_view unwrap_settings[] = {"delete.tombstone.handling.mode",
                                                "delete.handling.mode",
                                                "drop.tombstones",
                                                "add.fields",
                                                "add.fields.prefix",
                                                "replace.null.with.default"};
// Debezium's names; logical.table.cache.size and schema.name.adjustment.mode are accepted and
// do nothing (sluice caches per topic unbounded and keeps no Connect schema names).
constexpr std::string_view logical_router_settings[] = {"topic.regex",
                                                        "topic.replacement",
                                                        "key.enforce.uniqueness",
                                                        "key.field.name",
                                                        "key.field.regex",
                                                        "key.field.replacement",
                                                        "schema.name.adjustment.mode",
                                                        "logical.table.cache.size"};
constexpr std::string_view logical_router_required[] = {"topic.regex", "topic.replacement"};

constexpr kind_entry kinds[] = {
    {transform_kind::regex_router, "RegexRouter", false, router_settings, router_settings},
    {transform_kind::replace_field, "ReplaceField", true, replace_settings, {}},
    {transform_kind::filter, "Filter", false, {}, {}},
    {transform_kind::insert_field, "InsertField", true, insert_settings, {}},
    {transform_kind::mask_field, "MaskField", true, mask_settings, key_settings},
    {transform_kind::timestamp_converter, "TimestampConverter", true, converter_settings,
     converter_required},
    {transform_kind::cast, "Cast", true, cast_settings, cast_settings},
    {transform_kind::value_to_key, "ValueToKey", false, key_settings, key_settings},
    {transform_kind::extract_new_record_state, "ExtractNewRecordState", false, unwrap_settings, {}},
    {transform_kind::by_logical_table_router, "ByLogicalTableRouter", false,
     logical_router_settings, logical_router_required},
};

const kind_entry& entry_of(transform_kind kind) {
  for (const kind_entry& e : kinds) {
    if (e.kind == kind) return e;
  }
  return kinds[0];
}

std::string known_list() {
  std::string out;
  for (const kind_entry& e : kinds)
    out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

std::string unknown_text() {
  return "unknown transform type; known: " + known_list() + " (or Connect's class names, " +
         std::string(connect_package) + "*, and Debezium's, " + std::string(debezium_package) +
         "*)";
}

// The simple class name: after the package, before a `$Value`/`$Key` member class.
std::string_view simple_name(std::string_view type) {
  const size_t dot = type.rfind('.');
  if (dot != std::string_view::npos) type.remove_prefix(dot + 1);
  return type.substr(0, type.find('$'));
}

}  // namespace

std::variant<transform_kind, std::string> transform_kind_of(std::string_view type) {
  const bool qualified = type.find('.') != std::string_view::npos;
  const std::string_view simple = simple_name(type);
  for (std::string_view debezium : debezium_types) {
    if (simple != debezium) continue;
    if (qualified && type != std::string(debezium_package) + std::string(debezium))
      return unknown_text();
    for (const kind_entry& e : kinds) {
      if (e.name == debezium) return e.kind;
    }
  }
  if (qualified && !type.starts_with(connect_package)) return unknown_text();
  const size_t dollar = type.find('$');
  const std::string_view member =
      dollar == std::string_view::npos ? std::string_view() : type.substr(dollar);
  for (const kind_entry& e : kinds) {
    if (simple != e.name) continue;
    if (member == "$Key" && e.has_value_variant) {
      return std::string(e.name) +
             "$Key is not supported: sluice's key is the row's own key columns; rename, choose "
             "or convert them through the value's columns (" +
             std::string(e.name) + "$Value, ValueToKey), which carry the key with them";
    }
    if (e.has_value_variant ? !member.empty() && member != "$Value" : !member.empty())
      return unknown_text();
    // Connect's class for a transform with variants is Name$Value; the short name may omit it.
    if (qualified && e.has_value_variant && member.empty()) return unknown_text();
    return e.kind;
  }
  return unknown_text();
}

std::string_view transform_name(transform_kind kind) {
  return entry_of(kind).name;
}

std::span<const std::string_view> transform_settings_of(transform_kind kind) {
  return entry_of(kind).settings;
}

std::span<const std::string_view> transform_required_settings(transform_kind kind) {
  return entry_of(kind).required;
}

std::string shard_key_field(std::string_view enforce_uniqueness, std::string_view key_field_name) {
  // The loader checked it: "true" or "false", in any case; unset is Debezium's true.
  if (enforce_uniqueness.size() == 5) return "";
  return std::string(key_field_name.empty() ? default_shard_key_field : key_field_name);
}

std::variant<predicate_kind, std::string> predicate_kind_of(std::string_view type) {
  constexpr std::string_view package = "org.apache.kafka.connect.transforms.predicates.";
  if (type.starts_with(package)) type.remove_prefix(package.size());
  if (type == "TopicNameMatches") return predicate_kind::topic_name_matches;
  if (type == "HasHeaderKey") return predicate_kind::has_header_key;
  if (type == "RecordIsTombstone") return predicate_kind::record_is_tombstone;
  return "unknown predicate type; known: TopicNameMatches, HasHeaderKey, RecordIsTombstone (or "
         "Connect's class names, " +
         std::string(package) + "*)";
}

std::variant<std::vector<replacement_piece>, std::string> parse_java_replacement(
    std::string_view text, std::size_t groups) {
  std::vector<replacement_piece> pieces;
  auto literal = [&](char c) {
    if (pieces.empty() || pieces.back().group >= 0) pieces.emplace_back();
    pieces.back().literal.push_back(c);
  };
  for (size_t i = 0; i < text.size();) {
    const char c = text[i++];
    if (c == '\\') {
      if (i == text.size()) return std::string("ends with a \\ that escapes nothing");
      literal(text[i++]);
      continue;
    }
    if (c != '$') {
      literal(c);
      continue;
    }
    if (i == text.size()) return std::string("ends with a $ that names no group (write \\$)");
    if (text[i] == '{') {
      return std::string(
          "${name} group references are not supported (std::regex has no named "
          "groups): use $1, $2, ...");
    }
    if (text[i] < '0' || text[i] > '9') {
      return std::string("a $ must be followed by a group number (write \\$ for a $)");
    }
    size_t group = static_cast<size_t>(text[i++] - '0');
    // As Java: more digits join the number while it is still a group of the regex.
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      const size_t longer = group * 10 + static_cast<size_t>(text[i] - '0');
      if (longer > groups) break;
      group = longer;
      ++i;
    }
    if (group > groups) {
      return "$" + std::to_string(group) + " names no group: the regex has " +
             std::to_string(groups) + " capturing group" + (groups == 1 ? "" : "s");
    }
    pieces.push_back({{}, static_cast<int>(group)});
  }
  return pieces;
}

std::variant<std::pair<std::string, std::string>, std::string> parse_rename(
    std::string_view entry) {
  const size_t colon = entry.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == entry.size() ||
      entry.find(':', colon + 1) != std::string_view::npos) {
    return std::string("a rename is old:new, e.g. \"cust_id:customer_id\"");
  }
  return std::pair{std::string(entry.substr(0, colon)), std::string(entry.substr(colon + 1))};
}

std::string check_transform_type(std::string_view, std::string_view value) {
  if (value.empty()) return "must not be empty";
  auto kind = transform_kind_of(value);
  if (auto* why = std::get_if<std::string>(&kind)) return *why;
  return "";
}

std::string regex_error_text(std::string_view regex) {
  try {
    std::regex(regex.begin(), regex.end(), std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    return "is not a valid regular expression (ECMAScript: Java's lookbehind, named groups, "
           "inline flags such as (?i) and \\p{...} classes are not supported)";
  }
  // A possessive quantifier (Java's a++, a*+, a?+, a{2}+) reads in ECMAScript as another
  // repetition, silently: refused rather than matched otherwise.
  bool in_class = false;
  for (size_t i = 0; i < regex.size(); ++i) {
    const char c = regex[i];
    if (c == '\\') {
      ++i;  // an escaped character is a literal
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else if ((c == '*' || c == '+' || c == '?' || c == '}') && i + 1 < regex.size() &&
               regex[i + 1] == '+') {
      return "uses a possessive quantifier (" + std::string(regex.substr(i, 2)) +
             "), which only Java has: write it without the last +";
    }
  }
  return "";
}

std::string check_transform_regex(std::string_view, std::string_view value) {
  if (value.empty()) return "must not be empty";
  return regex_error_text(value);
}

std::string check_transform_rename(std::string_view, std::string_view value) {
  auto pair = parse_rename(value);
  if (auto* why = std::get_if<std::string>(&pair)) return *why;
  return "";
}

std::string check_predicate_type(std::string_view, std::string_view value) {
  if (value.empty()) return "must not be empty";
  auto kind = predicate_kind_of(value);
  if (auto* why = std::get_if<std::string>(&kind)) return *why;
  return "";
}

namespace {

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s)
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  return out;
}

std::string one_of(std::string_view value, std::span<const std::string_view> allowed) {
  const std::string v = lower(value);
  std::string list;
  for (std::string_view a : allowed) {
    if (v == a) return "";
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  return "must be one of " + list;
}

}  // namespace

std::string check_tombstone_handling_mode(std::string_view, std::string_view value) {
  constexpr std::string_view modes[] = {"drop", "tombstone", "rewrite", "rewrite-with-tombstone",
                                        "delete-to-tombstone"};
  return one_of(value, modes);
}

std::string check_delete_handling_mode(std::string_view, std::string_view value) {
  constexpr std::string_view modes[] = {"drop", "rewrite", "none"};
  return one_of(value, modes);
}

std::string check_boolean_text(std::string_view, std::string_view value) {
  constexpr std::string_view values[] = {"true", "false"};
  return one_of(value, values);
}

std::string check_optional_regex(std::string_view entry, std::string_view value) {
  if (value.find_first_not_of(" \t") == std::string_view::npos) return "";
  return check_transform_regex(entry, value);
}

std::string check_schema_name_adjustment_mode(std::string_view, std::string_view value) {
  constexpr std::string_view modes[] = {"none", "avro", "avro_unicode"};
  return one_of(value, modes);
}

std::string check_positive_integer_text(std::string_view, std::string_view value) {
  if (value.empty() || value.size() > 9 || value.find_first_not_of("0123456789") != value.npos ||
      value.find_first_not_of('0') == value.npos)
    return "must be a positive integer";
  return "";
}

std::string check_transform_name(std::string_view, std::string_view value) {
  if (value.empty()) return "must not be empty";
  if (value.find_first_of(". \t") != std::string_view::npos)
    return "a transform's name holds no dot nor space";
  return "";
}

}  // namespace sluice
