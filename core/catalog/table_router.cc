#include "core/catalog/table_router.h"

namespace sluice {

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

namespace {

std::string substitute(std::string_view format, const table_name& source, std::string_view topic) {
  std::string out;
  for (size_t i = 0; i < format.size();) {
    if (format.compare(i, 2, "${") == 0) {
      const size_t close = format.find('}', i);
      if (close != std::string_view::npos) {
        const std::string_view var = format.substr(i + 2, close - i - 2);
        if (var == "topic") {
          out += topic;
        } else if (var == "database") {
          out += source.database;
        } else if (var == "schema") {
          out += source.schema.empty() ? source.database : source.schema;
        } else if (var == "table") {
          out += source.table;
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
  full = explicit_target ? *explicit_target : substitute(_options.name_format, source, topic);
  if (_options.lower_case) full = lower_ascii(full);
  // The first dot separates schema from table; a name without one goes to default_schema.
  target_table t;
  const size_t dot = full.find('.');
  if (dot == std::string::npos) {
    t.schema = _options.default_schema;
    t.name = full;
  } else {
    t.schema = full.substr(0, dot);
    t.name = full.substr(dot + 1);
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
