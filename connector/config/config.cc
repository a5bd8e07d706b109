#include "connector/config/config.h"

#include "connector/config/config_table.h"
#include "connector/config/config_value.h"
#include "connector/config/redact.h"

namespace sluice {
namespace {

template <typename E, std::size_t N>
std::string_view name_of(E v, const std::array<std::string_view, N>& names) {
  const auto i = static_cast<std::size_t>(v);
  return i < N ? names[i] : "?";
}

bool is_empty(const typed_value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return s->empty();
  if (const auto* l = std::get_if<std::vector<std::string>>(&v)) return l->empty();
  if (const auto* m = std::get_if<string_pairs>(&v)) return m->empty();
  return false;
}

// The strings of a value with every known secret in them redacted (before YAML quoting, which
// could escape a secret's characters out of sight of a later search).
typed_value without_secrets(typed_value v, const std::vector<std::string>& secrets) {
  if (secrets.empty()) return v;
  if (auto* s = std::get_if<std::string>(&v)) {
    *s = redact_secrets(*s, secrets);
  } else if (auto* l = std::get_if<std::vector<std::string>>(&v)) {
    for (auto& item : *l)
      item = redact_secrets(item, secrets);
  } else if (auto* m = std::get_if<string_pairs>(&v)) {
    for (auto& [name, value] : *m)
      value = redact_secrets(value, secrets);
  }
  return v;
}

// A key's value for describe(): secrets redacted, DSNs through redact(), registry URLs (which
// may carry basic-auth user info) through redact_url_user_info().
std::string shown(const config& c, const config_key& key, const typed_value& v) {
  if (key.name.ends_with("schema.registry.url")) {
    if (const auto* url = std::get_if<std::string>(&v)) {
      return format_value(key, typed_value(redact_secrets(redact_url_user_info(*url), c.secrets)));
    }
  }
  if (!key.secret) return format_value(key, without_secrets(v, c.secrets));
  // An unset secret (http.auth.token's default) has nothing to hide, and prints as unset.
  if (const auto* text = std::get_if<std::string>(&v); text && text->empty()) {
    return format_value(key, v);
  }
  if (key.name.ends_with("dsn")) {
    return yaml_scalar(redact_secrets(redact(std::get<std::string>(v)), c.secrets));
  }
  return yaml_scalar(redacted_text);
}

void describe_kafka(const config& c, std::string& out) {
  out += "kafka:\n";
  for (const auto& [name, value] : c.kafka) {
    out += "  " + yaml_scalar(name) + ": " +
           yaml_scalar(is_sensitive_kafka_property(name) ? std::string(redacted_text)
                                                         : redact_secrets(value, c.secrets)) +
           "\n";
  }
}

// tables.<source>.* or topic.overrides.<topic>.*: one block per entry.
void describe_group(const config& c, std::string_view group, std::string& out) {
  const std::string_view top = group.substr(0, group.find(".<"));
  const std::string prefix = std::string(group) + ".";
  std::vector<std::string> names;
  for (const auto& key : config_keys()) {
    if (key.name.starts_with(prefix)) {
      names = key.binding.names(c);
      break;
    }
  }
  if (names.empty()) return;
  // A group whose top is also a key of its own (transforms, the list beside transforms.<name>)
  // is written flat, as Connect does: one YAML key cannot be both.
  const bool flat = find_config_key(top) != nullptr;
  if (!flat) out += std::string(top) + ":\n";
  for (const auto& name : names) {
    if (!flat) out += "  " + yaml_scalar(name) + ":\n";
    for (const auto& key : config_keys()) {
      if (!key.name.starts_with(prefix)) continue;
      const typed_value v = key.binding.load(c, key, name);
      if (key.type == value_type::enumeration && is_empty(v)) continue;  // unset: inherits
      const std::string setting(key.name.substr(prefix.size()));
      if (flat) {
        if (is_empty(v)) continue;  // a setting another type reads
        out += std::string(top) + "." + name + "." + setting + ": " + shown(c, key, v) + "\n";
      } else {
        out += "    " + setting + ": " + shown(c, key, v) + "\n";
      }
    }
  }
}

}  // namespace

std::string_view to_string(message_format v) {
  return name_of(v, message_format_names);
}
std::string_view to_string(delete_mode v) {
  return name_of(v, delete_mode_names);
}
std::string_view to_string(keyless_mode v) {
  return name_of(v, keyless_mode_names);
}
std::string_view to_string(key_mode v) {
  return name_of(v, key_mode_names);
}
std::string_view to_string(insert_mode v) {
  return name_of(v, insert_mode_names);
}
std::string_view to_string(out_of_range_mode v) {
  return name_of(v, out_of_range_mode_names);
}
std::string_view to_string(ddl_failure_mode v) {
  return name_of(v, ddl_failure_mode_names);
}
std::string_view to_string(error_tolerance v) {
  return name_of(v, error_tolerance_names);
}
std::string_view to_string(table_name_style v) {
  return name_of(v, table_name_style_names);
}

std::string_view to_string(letter_case v) {
  return name_of(v, letter_case_names);
}
std::string_view to_string(log_format v) {
  return name_of(v, log_format_names);
}
std::string_view to_string(log_level v) {
  return name_of(v, log_level_names);
}

message_format config::format_for(std::string_view topic) const {
  const auto it = topic_overrides.find(std::string(topic));
  if (it != topic_overrides.end() && it->second.format) return *it->second.format;
  return format;
}

std::optional<std::string> config::kafka_property(std::string_view property) const {
  for (const auto& [key, value] : kafka) {
    if (key == property) return value;
  }
  return std::nullopt;
}

const std::string& schema_registry_config::effective_url() const {
  if (!url.empty()) return url;
  return value_converter_url.empty() ? key_converter_url : value_converter_url;
}

const std::string& schema_registry_config::effective_user_info() const {
  return user_info.empty() ? user_info_alias : user_info;
}

config config_with_defaults() {
  config c;
  for (const auto& key : config_keys()) {
    if (key.under_name() || (key.type == value_type::enumeration && key.default_value.empty())) {
      continue;
    }
    auto typed = type_scalar(key, key.default_value);
    if (const auto* v = std::get_if<typed_value>(&typed)) key.binding.store(c, key, "", *v);
  }
  return c;
}

std::string describe(const config& c) {
  std::string out;
  std::string_view last_group;
  for (const auto& key : config_keys()) {
    if (key.under_name()) {
      const std::string_view group = key.name.substr(0, key.name.find('>') + 1);
      if (group != last_group) describe_group(c, group, out);
      last_group = group;
      continue;
    }
    if (key.name == "kafka") {
      describe_kafka(c, out);
      continue;
    }
    const typed_value v = key.binding.load(c, key, "");
    // Unset keys (empty, with an empty default) are left out: topics or topics.regex.
    if (is_empty(v) && key.default_value.empty()) continue;
    out += std::string(key.name) + ": " + shown(c, key, v) + "\n";
  }
  return out;
}

}  // namespace sluice
