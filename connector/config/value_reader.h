#pragma once

#include <optional>
#include <vector>

#include "connector/config/config_error.h"
#include "connector/config/config_table.h"
#include "connector/config/config_walker.h"
#include "connector/config/env_substitution.h"

namespace sluice {

// Types the value of one key found in the file: substitutes ${ENV} in each of its scalars,
// checks the YAML shape (scalar, list, map), parses and bounds-checks through type_scalar(),
// then applies the key's check. Every problem goes to `errors`, each placed at its own scalar;
// the value is returned only when there is none. Values of secret keys never appear in a
// message.
class value_reader {
 public:
  explicit value_reader(const env_lookup& env) : _env(env) {}

  std::optional<typed_value> read(const found_value& found,
                                  std::vector<config_error>& errors) const;

 private:
  std::optional<typed_value> read_scalar(const found_value& found,
                                         std::vector<config_error>& errors) const;
  std::optional<typed_value> read_list(const found_value& found,
                                       std::vector<config_error>& errors) const;
  std::optional<typed_value> read_map(const found_value& found,
                                      std::vector<config_error>& errors) const;
  // The scalar's text after substitution; nullopt (and errors) if a reference is bad.
  std::optional<std::string> substituted(const config_key& key, const std::string& path,
                                         const YAML::Node& node, const YAML::Mark& mark,
                                         std::vector<config_error>& errors) const;

  const env_lookup& _env;
};

}  // namespace sluice
