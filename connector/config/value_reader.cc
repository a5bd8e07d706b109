#include "connector/config/value_reader.h"

#include "connector/config/config_value.h"
#include "connector/config/did_you_mean.h"
#include "connector/config/redact.h"

namespace sluice {
namespace {

std::string_view kind_of(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    default:
      return "a scalar";
  }
}

YAML::Mark mark_or(const YAML::Node& node, const YAML::Mark& fallback) {
  return node.Mark().is_null() ? fallback : node.Mark();
}

// `, got "lots"` (and where the text came from, if ${ENV} made it), or nothing for secrets;
// for text read from a file, only where it came from.
std::string got(const config_key& key, const YAML::Node& node, const std::string& text,
                bool hidden) {
  if (key.secret) return "";
  if (hidden) return ", read through " + double_quoted(node.Scalar()) + " (not shown: a secret)";
  std::string out = ", got " + double_quoted(text);
  if (node.Scalar() != text) out += " (from " + double_quoted(node.Scalar()) + ")";
  return out;
}

// Whether the whole value of a key is a secret, so that what ${ENV} gave it is one too. A DSN
// is not: redact() finds its password by shape, and the rest (hosts, database names) hidden
// wherever it stands would blind the logs.
bool whole_secret(const config_key& key) {
  return key.secret && !key.name.ends_with("dsn");
}

const std::string_view no_value =
    "no value given (write \"\" for an empty string, or remove the key for its default)";

}  // namespace

std::optional<typed_value> value_reader::read(const found_value& found,
                                              std::vector<config_error>& errors) const {
  switch (found.key->type) {
    case value_type::string_list:
      return read_list(found, errors);
    case value_type::string_map:
      return read_map(found, errors);
    default:
      return read_scalar(found, errors);
  }
}

std::optional<value_reader::scalar_text> value_reader::substituted(
    const config_key& key, bool secret, const std::string& path, const YAML::Node& node,
    const YAML::Mark& mark, std::vector<config_error>& errors) const {
  substitution s = substitute_env(node.Scalar(), _env, key.routing);
  for (auto& problem : s.errors)
    errors.push_back(error_at(mark, path, std::move(problem)));
  const bool hidden = !s.from_files.empty() || (secret && !s.from_env.empty());
  for (auto& content : s.from_files)
    _secrets.push_back(std::move(content));
  if (secret) {
    for (auto& value : s.from_env)
      _secrets.push_back(std::move(value));
  }
  // A DSN is redacted by its shape (redact()); its host and user may come from ${ENV} too and
  // are no secrets. But libpq quotes a URI password it cannot percent-decode in its error
  // ("invalid percent-encoded token: \"%zz…\""), where no shape shows it: a password holding
  // '%' is recorded by value. Others are not, lest a password such as the demo's "sluice"
  // blank out every "sluice" in the logs.
  if (key.secret && !whole_secret(key)) {
    for (auto& password : dsn_passwords(s.text))
      if (password.find('%') != std::string::npos) _secrets.push_back(std::move(password));
  }
  if (!s.errors.empty()) return std::nullopt;
  return scalar_text{std::move(s.text), hidden};
}

std::optional<typed_value> value_reader::read_scalar(const found_value& found,
                                                     std::vector<config_error>& errors) const {
  const config_key& key = *found.key;
  if (found.node.IsNull()) {
    errors.push_back(error_at(found.mark, found.path, std::string(no_value)));
    return std::nullopt;
  }
  if (!found.node.IsScalar()) {
    errors.push_back(
        error_at(found.mark, found.path,
                 "expected " + expectation(key) + ", got " + std::string(kind_of(found.node))));
    return std::nullopt;
  }
  const auto scalar =
      substituted(key, whole_secret(key), found.path, found.node, found.mark, errors);
  if (!scalar) return std::nullopt;
  const std::string& text = scalar->text;
  auto typed = type_scalar(key, text);
  if (const auto* reason = std::get_if<std::string>(&typed)) {
    std::string message = *reason + got(key, found.node, text, scalar->hidden);
    if (key.type == value_type::enumeration && !key.secret && !scalar->hidden) {
      std::vector<std::string_view> allowed(key.allowed.begin(), key.allowed.end());
      if (auto near = closest_match(text, allowed)) {
        message += "; did you mean " + std::string(*near) + "?";
      }
    }
    errors.push_back(error_at(found.mark, found.path, std::move(message)));
    return std::nullopt;
  }
  if (key.check != nullptr) {
    if (std::string problem = key.check("", text); !problem.empty()) {
      errors.push_back(error_at(found.mark, found.path, std::move(problem)));
      return std::nullopt;
    }
  }
  return std::get<typed_value>(std::move(typed));
}

std::optional<typed_value> value_reader::read_list(const found_value& found,
                                                   std::vector<config_error>& errors) const {
  const config_key& key = *found.key;
  const std::size_t before = errors.size();
  std::vector<std::string> items;
  auto add = [&](std::string item, const std::string& path, const YAML::Mark& mark) {
    if (key.check != nullptr) {
      if (std::string problem = key.check("", item); !problem.empty()) {
        errors.push_back(error_at(mark, path, std::move(problem)));
      }
    }
    items.push_back(std::move(item));
  };
  if (found.node.IsNull()) return typed_value(std::move(items));
  if (found.node.IsMap()) {
    errors.push_back(error_at(found.mark, found.path, "expected a list of strings, got a map"));
    return std::nullopt;
  }
  if (found.node.IsScalar()) {
    // One string: comma-separated items (as Kafka Connect writes topics), ${ENV} included.
    const auto scalar =
        substituted(key, whole_secret(key), found.path, found.node, found.mark, errors);
    if (!scalar) return std::nullopt;
    for (auto& item : split_list(scalar->text))
      add(std::move(item), found.path, found.mark);
  } else {
    std::size_t index = 0;
    for (const auto& element : found.node) {
      const std::string path = found.path + "[" + std::to_string(index++) + "]";
      const YAML::Mark mark = mark_or(element, found.mark);
      if (!element.IsScalar()) {
        errors.push_back(error_at(mark, path,
                                  element.IsNull()
                                      ? std::string(no_value)
                                      : "expected a string, got " + std::string(kind_of(element))));
        continue;
      }
      if (auto scalar = substituted(key, whole_secret(key), path, element, mark, errors))
        add(std::move(scalar->text), path, mark);
    }
  }
  if (errors.size() != before) return std::nullopt;
  return typed_value(std::move(items));
}

std::optional<typed_value> value_reader::read_map(const found_value& found,
                                                  std::vector<config_error>& errors) const {
  const config_key& key = *found.key;
  const std::size_t before = errors.size();
  string_pairs entries;
  if (found.node.IsNull()) return typed_value(std::move(entries));
  if (!found.node.IsMap()) {
    errors.push_back(error_at(found.mark, found.path,
                              "expected a map, got " + std::string(kind_of(found.node))));
    return std::nullopt;
  }
  for (auto it = found.node.begin(); it != found.node.end(); ++it) {
    const YAML::Node name = it->first;  // a copy: it-> yields a temporary
    const YAML::Node value = it->second;
    const YAML::Mark mark = mark_or(name, found.mark);
    if (!name.IsScalar()) {
      errors.push_back(error_at(mark, found.path, "a key must be a string"));
      continue;
    }
    const std::string path = found.path + "." + name.Scalar();
    bool duplicate = false;
    for (const auto& [seen, unused] : entries)
      duplicate = duplicate || seen == name.Scalar();
    if (duplicate) {
      errors.push_back(error_at(mark, path, "given twice"));
      continue;
    }
    if (!value.IsScalar()) {
      errors.push_back(error_at(mark_or(value, mark), path,
                                value.IsNull()
                                    ? std::string(no_value)
                                    : "expected a string, got " + std::string(kind_of(value))));
      continue;
    }
    const bool secret = key.name == "kafka" && is_sensitive_kafka_property(name.Scalar());
    auto scalar = substituted(key, secret, path, value, mark_or(value, mark), errors);
    if (!scalar) continue;
    if (key.check != nullptr) {
      if (std::string problem = key.check(name.Scalar(), scalar->text); !problem.empty()) {
        errors.push_back(error_at(mark, path, std::move(problem)));
        continue;
      }
    }
    entries.emplace_back(name.Scalar(), std::move(scalar->text));
  }
  if (errors.size() != before) return std::nullopt;
  return typed_value(std::move(entries));
}

}  // namespace sluice
