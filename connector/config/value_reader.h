#pragma once

#include <optional>
#include <vector>

#include "connector/config/config_error.h"
#include "connector/config/config_table.h"
#include "connector/config/config_walker.h"
#include "connector/config/env_substitution.h"

namespace sluice {

// Types the value of one key found in the file: substitutes ${ENV} and ${file:} in each of its
// scalars, checks the YAML shape (scalar, list, map), parses and bounds-checks through
// type_scalar(), then applies the key's check. Every problem goes to `errors`, each placed at
// its own scalar; the value is returned only when there is none. What a ${file:} read, and
// what ${ENV} gave a sensitive librdkafka property or a secret key other than a DSN, and a
// DSN's passwords holding '%' (libpq quotes those it cannot decode), are appended to `secrets`;
// neither it nor a secret key's value ever appears in a message.
class value_reader {
 public:
  value_reader(const env_lookup& env, std::vector<std::string>& secrets)
      : _env(env), _secrets(secrets) {}

  std::optional<typed_value> read(const found_value& found,
                                  std::vector<config_error>& errors) const;

 private:
  std::optional<typed_value> read_scalar(const found_value& found,
                                         std::vector<config_error>& errors) const;
  std::optional<typed_value> read_list(const found_value& found,
                                       std::vector<config_error>& errors) const;
  std::optional<typed_value> read_map(const found_value& found,
                                      std::vector<config_error>& errors) const;
  struct scalar_text {
    std::string text;
    bool hidden = false;  // holds a secret: never shown in a message
  };
  // The scalar's text after substitution; nullopt (and errors) if a reference is bad.
  // `secret`: the whole value is a secret (what ${ENV} gave it is recorded too).
  std::optional<scalar_text> substituted(const config_key& key, bool secret,
                                         const std::string& path, const YAML::Node& node,
                                         const YAML::Mark& mark,
                                         std::vector<config_error>& errors) const;

  const env_lookup& _env;
  std::vector<std::string>& _secrets;
};

}  // namespace sluice
