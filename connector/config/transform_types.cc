#include "connector/config/transform_types.h"

#include <array>
#include <regex>

namespace sluice {
namespace {

constexpr std::string_view connect_package = "org.apache.kafka.connect.transforms.";

// Transforms found in front of JDBC sinks that a later version runs (SPEC §6a "Transforms"):
// named as such, so that a user knows it is a gap, not a typo.
constexpr std::array<std::string_view, 8> later_types{
    "Filter",     "InsertField",           "MaskField",           "TimestampConverter", "Cast",
    "ValueToKey", "ExtractNewRecordState", "ByLogicalTableRouter"};

// The simple class name: after the package, before a `$Value`/`$Key` member class.
std::string_view simple_name(std::string_view type) {
  const size_t dot = type.rfind('.');
  if (dot != std::string_view::npos) type.remove_prefix(dot + 1);
  return type.substr(0, type.find('$'));
}

}  // namespace

std::variant<transform_kind, std::string> transform_kind_of(std::string_view type) {
  if (type == "RegexRouter" || type == std::string(connect_package) + "RegexRouter")
    return transform_kind::regex_router;
  if (type == "ReplaceField" || type == std::string(connect_package) + "ReplaceField$Value")
    return transform_kind::replace_field;
  if (type == std::string(connect_package) + "ReplaceField$Key" || type == "ReplaceField$Key") {
    return std::string(
        "ReplaceField$Key is not supported: sluice's key is the row's own key columns; rename "
        "or select them with ReplaceField (the value's), which renames the key with them");
  }
  const std::string_view simple = simple_name(type);
  for (std::string_view later : later_types) {
    if (simple == later) {
      return std::string(later) +
             " is not yet supported (sluice runs RegexRouter and ReplaceField; Filter, "
             "InsertField, MaskField, TimestampConverter, Cast, ValueToKey, "
             "ExtractNewRecordState and ByLogicalTableRouter are to come)";
    }
  }
  return std::string("unknown transform type; known: RegexRouter (") +
         std::string(connect_package) + "RegexRouter), ReplaceField (" +
         std::string(connect_package) + "ReplaceField$Value)";
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

std::string check_transform_name(std::string_view, std::string_view value) {
  if (value.empty()) return "must not be empty";
  if (value.find_first_of(". \t") != std::string_view::npos)
    return "a transform's name holds no dot nor space";
  return "";
}

}  // namespace sluice
