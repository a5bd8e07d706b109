#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice {

// A Kafka Connect connector's configuration as `sluice config import` reads it: the JSON POSTed
// to Connect's REST API ({"name": ..., "config": {...}}), the flat JSON map, or a Java
// .properties file. Values are strings (Connect's configs are); order is the file's.
struct connect_config {
  std::string name;  // the JSON's "name", else the "name" key; "" when neither
  std::vector<std::pair<std::string, std::string>> entries;

  std::optional<std::string> get(std::string_view key) const;
};

// Reads `text`; the format is JSON when it starts with '{' (after blanks), else .properties.
// An error says what could not be read, with its line.
struct connect_config_result {
  std::optional<connect_config> config;
  std::string error;
};
connect_config_result read_connect_config(std::string_view text);

// Java .properties (java.util.Properties.load): `key=value`, `key: value` or `key value`,
// `#` and `!` comments, a trailing `\` continuing the line, `\t \n \r \f \uXXXX` escapes.
// No library in Debian 12 reads this format for C++; it is small and fully specified.
std::vector<std::pair<std::string, std::string>> read_properties(std::string_view text);

}  // namespace sluice
