#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "connector/config/config.h"
#include "connector/config/config_error.h"
#include "connector/config/env_substitution.h"

namespace sluice {

// A loaded configuration, or every problem the file has (never both, never an empty list).
class load_result {
 public:
  load_result(config c) : _v(std::move(c)) {}                               // NOLINT: implicit
  load_result(std::vector<config_error> errors) : _v(std::move(errors)) {}  // NOLINT: implicit

  bool ok() const { return _v.index() == 0; }
  explicit operator bool() const { return ok(); }
  config& value() { return std::get<0>(_v); }
  const config& value() const { return std::get<0>(_v); }
  const config& operator*() const { return value(); }
  const config* operator->() const { return &value(); }
  const std::vector<config_error>& errors() const { return std::get<1>(_v); }
  // The errors, one per line, in file order.
  std::string error_text() const;

 private:
  std::variant<config, std::vector<config_error>> _v;
};

// Loads sluice's YAML configuration (SPEC §6) in one pass, reporting all problems at once:
//   1. parse the YAML (a syntax error is reported at its line and column);
//   2. match every key against the key table (config_table.cc): unknown keys, with a
//      "did you mean", and keys given twice are errors;
//   3. in each scalar value, substitute ${ENV} / ${ENV:-default} / ${file:/path}
//      (env_substitution.h), recording what they read for redaction (config::secrets);
//      ${topic} ${database} ${schema} ${table} are routing placeholders, never variables;
//   4. type, bounds-check and check each value; fill unset keys from the table's defaults;
//   5. check what spans keys: exactly one of topics and topics.regex, kafka.bootstrap.servers
//      given, topic.overrides naming subscribed topics; kafka group.id defaults to `name`.
// `file_name` only labels the messages. Nothing is thrown for bad input.
load_result load_config(std::string_view yaml_text, const env_lookup& env,
                        std::string_view file_name = "<config>");

// load_config() on a file's content; an unreadable file is one error.
load_result load_config_file(const std::string& path,
                             const env_lookup& env = process_environment());

}  // namespace sluice
