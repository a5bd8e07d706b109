#pragma once

#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "connector/config/config_value.h"  // split_list: a Connect list value, as ConfigDef splits it
#include "connector/config/import/connect_config.h"
#include "connector/config/import/connector_import.h"

namespace sluice {

// The pieces `sluice config import` writes its YAML with (connector_import.cc orchestrates,
// transform_import.cc maps the transforms chain).
enum class peer { debezium, confluent };

// A YAML double-quoted scalar.
std::string quoted(std::string_view s);
// ["a", "b"]
std::string yaml_list(const std::vector<std::string>& items);
// `key=value` for the list of what is not mapped, the value as *** when the key names a secret
// (is_sensitive_kafka_property: a password, a secret, a JAAS config).
std::string key_value(std::string_view key, std::string_view value);
// An environment variable's name made of s: upper case, runs of other characters as one `_`.
std::string upper_name(std::string_view s);

// The connector's keys as they are taken and the YAML written from them, each key with the
// comment saying where it came from; what cannot be mapped and the variables the YAML reads go
// to the import_result.
//
// Lifecycle: one per import; the config and the result outlive it. Threading: one.
class mapper {
 public:
  mapper(const connect_config& c, peer p, import_result& r) : _c(c), _peer(p), _r(r) {}

  // The connector's value of the first of `keys` it sets; the key is then taken.
  std::optional<std::pair<std::string, std::string>> take(std::initializer_list<const char*> keys) {
    for (const char* k : keys) {
      if (auto v = _c.get(k)) {
        _taken.insert(k);
        return std::pair<std::string, std::string>{k, *v};
      }
    }
    return std::nullopt;
  }
  bool is_taken(const std::string& k) const { return _taken.contains(k); }
  void mark(const std::string& k) { _taken.insert(k); }

  void line(std::string_view key, const std::string& value, const std::string& from) {
    _yaml += "# " + from + "\n" + std::string(key) + ": " + value + "\n";
  }
  // A key and the lines that belong with it (transforms.<name>.*), written as they are.
  void block(std::string_view key, const std::string& value, const std::string& from,
             const std::string& lines) {
    line(key, value, from);
    _yaml += lines;
  }
  void kafka(std::string_view key, const std::string& value, const std::string& from) {
    _kafka += "  # " + from + "\n  " + std::string(key) + ": " + value + "\n";
  }
  void left_out(std::string key, std::string why) {
    _r.left_out.push_back({std::move(key), std::move(why)});
  }
  void variable(std::string name, std::string where) {
    for (const auto& [n, w] : _r.variables)
      if (n == name) return;
    _r.variables.emplace_back(std::move(name), std::move(where));
  }
  // Connect's config providers (${env:X}, ${file:/p:key}, ${directory:/d:f}) as sluice's
  // placeholders, each variable named in the result.
  std::string convert(std::string_view value);

  std::string yaml() const { return _yaml + (_kafka.empty() ? "" : "kafka:\n" + _kafka); }
  const std::set<std::string>& taken() const { return _taken; }
  peer which() const { return _peer; }

 private:
  const connect_config& _c;
  peer _peer;
  import_result& _r;
  std::set<std::string> _taken;
  std::string _yaml, _kafka;
};

}  // namespace sluice
