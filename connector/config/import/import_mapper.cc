#include "connector/config/import/import_mapper.h"

#include "connector/config/redact.h"

namespace sluice {

std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

std::string yaml_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + quoted(items[i]);
  return out + "]";
}

std::string key_value(std::string_view key, std::string_view value) {
  // consumer.override.<property>: the client property's own name decides.
  std::string_view property = key;
  if (const size_t at = key.find(".override."); at != std::string_view::npos)
    property = key.substr(at + 10);
  const bool secret = is_sensitive_kafka_property(key) || is_sensitive_kafka_property(property);
  return std::string(key) + "=" + (secret ? "***" : std::string(value));
}

std::string upper_name(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c >= 'a' && c <= 'z') {
      out.push_back(static_cast<char>(c - 'a' + 'A'));
    } else if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      out.push_back(c);
    } else if (out.empty() || out.back() != '_') {
      out.push_back('_');
    }
  }
  while (!out.empty() && out.back() == '_')
    out.pop_back();
  return out;
}

std::string mapper::convert(std::string_view value) {
  std::string out;
  for (size_t i = 0; i < value.size();) {
    if (value.compare(i, 2, "${") != 0) {
      out.push_back(value[i++]);
      continue;
    }
    const size_t close = value.find('}', i);
    if (close == std::string_view::npos) {
      out.append(value.substr(i));
      break;
    }
    const std::string_view inner = value.substr(i + 2, close - i - 2);
    i = close + 1;
    if (inner.starts_with("env:")) {
      const std::string name(inner.substr(4));
      out += "${" + name + "}";
      variable(name, "as the Connect worker had it (EnvVarConfigProvider)");
    } else if (inner.starts_with("file:")) {
      // ${file:/path:key}: a key of a properties file; sluice's ${file:} reads a whole file.
      const std::string_view ref = inner.substr(5);
      const size_t colon = ref.rfind(':');
      const std::string path(ref.substr(0, colon));
      const std::string key =
          colon == std::string_view::npos ? "" : std::string(ref.substr(colon + 1));
      const size_t slash = path.rfind('/');
      const std::string name = "SLUICE_" +
                               upper_name(path.substr(slash == std::string::npos ? 0 : slash + 1)) +
                               (key.empty() ? "" : "_" + upper_name(key));
      out += "${" + name + "}";
      variable(name, "key `" + key + "` of " + path + " (FileConfigProvider)");
    } else if (inner.starts_with("directory:")) {
      // ${directory:/dir:file}: one file's content, as sluice's ${file:/dir/file}.
      const std::string_view ref = inner.substr(10);
      const size_t colon = ref.rfind(':');
      out += "${file:" + std::string(ref.substr(0, colon)) + "/" +
             std::string(ref.substr(colon + 1)) + "}";
    } else {
      out += "${" + std::string(inner) + "}";  // a routing placeholder (${topic}...)
    }
  }
  return out;
}

}  // namespace sluice
