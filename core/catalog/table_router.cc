#include "core/catalog/table_router.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace sluice {

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

namespace {

// A placeholder's value under a style; nothing when the style has no such placeholder.
std::optional<std::string> placeholder(std::string_view var, name_style style,
                                       const table_name& source, std::string_view topic) {
  switch (style) {
    case name_style::sluice:
      if (var == "topic") return std::string(topic);
      if (var == "database") return source.database;
      if (var == "schema") return source.schema.empty() ? source.database : source.schema;
      if (var == "table") return source.table;
      return std::nullopt;
    case name_style::debezium:
      if (var == "topic") {
        std::string t(topic);
        std::replace(t.begin(), t.end(), '.', '_');
        return t;
      }
      if (var == "source.db") return source.database;
      if (var == "source.schema") return source.schema;
      if (var == "source.table") return source.table;
      return std::nullopt;
    case name_style::confluent:
      if (var == "topic") return std::string(topic);
      return std::nullopt;
  }
  return std::nullopt;
}

std::string substitute(std::string_view format, name_style style, const table_name& source,
                       std::string_view topic) {
  std::string out;
  for (size_t i = 0; i < format.size();) {
    if (format.compare(i, 2, "${") == 0) {
      const size_t close = format.find('}', i);
      if (close != std::string_view::npos) {
        const std::string_view var = format.substr(i + 2, close - i - 2);
        if (auto value = placeholder(var, style, source, topic)) {
          out += *value;
        } else {
          out.append(format.substr(i, close - i + 1));
        }
        i = close + 1;
        continue;
      }
    }
    out.push_back(format[i++]);
  }
  return out;
}

result<std::string> checked(std::string name, std::string_view what, size_t max_bytes) {
  if (name.empty()) return make_error(error_code::bad_identifier, std::string(what) + " is empty");
  if (max_bytes > 0 && name.size() > max_bytes) {
    return make_error(error_code::bad_identifier, std::string(what) + " \"" + name +
                                                      "\" is longer than " +
                                                      std::to_string(max_bytes) + " bytes");
  }
  if (name.find('\0') != std::string::npos) {
    return make_error(error_code::bad_identifier, std::string(what) + " contains a NUL byte");
  }
  return name;
}

}  // namespace

result<target_table> table_router::route(const table_name& source, std::string_view topic) const {
  std::string full;
  const std::string* explicit_target = nullptr;
  for (const auto& [configured, target] : _options.explicit_targets) {
    if (source.matches(configured)) {
      explicit_target = &target;
      if (configured == source.qualified()) break;  // the most specific name wins
    }
  }
  full = explicit_target ? *explicit_target
                         : substitute(_options.name_format, _options.style, source, topic);
  if (_options.lower_case) full = lower_ascii(full);
  target_table t;
  if (_options.style == name_style::sluice || explicit_target) {
    // The first dot separates schema from table; a name without one goes to default_schema.
    const size_t dot = full.find('.');
    if (dot == std::string::npos) {
      t.schema = _options.default_schema;
      t.name = full;
    } else {
      t.schema = full.substr(0, dot);
      t.name = full.substr(dot + 1);
    }
  } else {
    // [catalog.][schema.]table, as the peers parse their formatted names.
    std::vector<std::string> parts;
    for (size_t from = 0;;) {
      const size_t dot = full.find('.', from);
      parts.push_back(full.substr(from, dot == std::string::npos ? dot : dot - from));
      if (dot == std::string::npos) break;
      from = dot + 1;
    }
    if (parts.size() > 3) {
      return make_error(error_code::bad_identifier,
                        "target \"" + full + "\" has more than three dot-separated parts");
    }
    t.name = parts.back();
    t.schema = parts.size() >= 2 ? parts[parts.size() - 2] : _options.default_schema;
  }
  auto schema = checked(std::move(t.schema), "target schema", _options.max_identifier_bytes);
  if (!schema) return schema.err();
  auto name = checked(std::move(t.name), "target table", _options.max_identifier_bytes);
  if (!name) return name.err();
  return target_table{std::move(*schema), std::move(*name)};
}

result<std::string> table_router::column(std::string_view source_name) const {
  return checked(_options.lower_case ? lower_ascii(source_name) : std::string(source_name),
                 "column", _options.max_identifier_bytes);
}

}  // namespace sluice
