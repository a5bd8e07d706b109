#include "connector/config/import/connect_config.h"

#include <simdjson.h>

#include <cstdint>

namespace sluice {
namespace {

namespace od = simdjson::ondemand;

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\f';
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// The logical lines of a .properties text: comments and blank lines dropped, continuations
// joined (the next line's leading blanks dropped), escapes kept for unescape().
std::vector<std::string> logical_lines(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  bool continuing = false;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t start = 0;
    while (start < line.size() && blank(line[start]))
      ++start;
    line.remove_prefix(start);
    if (!continuing && (line.empty() || line[0] == '#' || line[0] == '!')) {
      if (at > text.size()) break;
      continue;
    }
    // An odd number of trailing backslashes continues the line.
    size_t slashes = 0;
    while (slashes < line.size() && line[line.size() - 1 - slashes] == '\\')
      ++slashes;
    if (slashes % 2 == 1) {
      current.append(line.substr(0, line.size() - 1));
      continuing = true;
    } else {
      current.append(line);
      out.push_back(std::move(current));
      current.clear();
      continuing = false;
    }
    if (at > text.size()) break;
  }
  if (continuing) out.push_back(std::move(current));
  return out;
}

std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out.push_back(s[i]);
      continue;
    }
    const char c = s[++i];
    switch (c) {
      case 't':
        out.push_back('\t');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'u': {
        uint32_t cp = 0;
        bool ok = i + 4 < s.size();
        for (size_t k = 1; ok && k <= 4; ++k) {
          const char h = s[i + k];
          cp <<= 4;
          if (h >= '0' && h <= '9') {
            cp |= static_cast<uint32_t>(h - '0');
          } else if (h >= 'a' && h <= 'f') {
            cp |= static_cast<uint32_t>(h - 'a' + 10);
          } else if (h >= 'A' && h <= 'F') {
            cp |= static_cast<uint32_t>(h - 'A' + 10);
          } else {
            ok = false;
          }
        }
        if (ok) {
          append_utf8(out, cp);
          i += 4;
        } else {
          out.push_back('u');  // Java refuses a malformed \u; kept as written here
        }
        break;
      }
      default:
        out.push_back(c);  // \= \: \# \! \\ and any other: the character itself
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> connect_config::get(std::string_view key) const {
  for (const auto& [k, v] : entries) {
    if (k == key) return v;
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> read_properties(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& line : logical_lines(text)) {
    // The key ends at the first unescaped '=', ':' or blank.
    size_t k = 0;
    while (k < line.size()) {
      if (line[k] == '\\') {
        k += 2;
        continue;
      }
      if (line[k] == '=' || line[k] == ':' || blank(line[k])) break;
      ++k;
    }
    k = std::min(k, line.size());
    size_t v = k;
    while (v < line.size() && blank(line[v]))
      ++v;
    if (v < line.size() && (line[v] == '=' || line[v] == ':')) ++v;
    while (v < line.size() && blank(line[v]))
      ++v;
    out.emplace_back(unescape(std::string_view(line).substr(0, k)),
                     unescape(std::string_view(line).substr(v)));
  }
  return out;
}

connect_config_result read_connect_config(std::string_view text) {
  size_t first = 0;
  while (first < text.size() && (blank(text[first]) || text[first] == '\n' || text[first] == '\r'))
    ++first;
  connect_config c;
  if (first == text.size() || text[first] != '{') {
    c.entries = read_properties(text);
    if (c.entries.empty()) return {std::nullopt, "no key=value line"};
    if (auto name = c.get("name")) c.name = *name;
    return {std::move(c), ""};
  }
  const simdjson::padded_string padded(text);
  od::parser parser;
  od::document doc;
  if (parser.iterate(padded).get(doc) != simdjson::SUCCESS) return {std::nullopt, "not JSON"};
  auto read_map = [&](od::object object) -> std::string {
    for (auto field : object) {
      std::string_view key;
      if (field.unescaped_key().get(key) != simdjson::SUCCESS) return "a key is not a string";
      od::value value;
      if (field.value().get(value) != simdjson::SUCCESS) return "cannot read " + std::string(key);
      od::json_type type;
      if (value.type().get(type) != simdjson::SUCCESS) return "cannot read " + std::string(key);
      std::string text_value;
      if (type == od::json_type::string) {
        std::string_view s;
        if (value.get_string().get(s) != simdjson::SUCCESS)
          return "bad string at " + std::string(key);
        text_value = s;
      } else if (type == od::json_type::object || type == od::json_type::array) {
        return "\"" + std::string(key) + "\" is not a string, number or boolean";
      } else {
        std::string_view raw = value.raw_json_token();  // a number, true, false or null
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' ||
                                raw.back() == '\t' || raw.back() == ','))
          raw.remove_suffix(1);
        text_value = raw;
      }
      c.entries.emplace_back(std::string(key), std::move(text_value));
    }
    return "";
  };
  od::object top;
  if (doc.get_object().get(top) != simdjson::SUCCESS) return {std::nullopt, "not a JSON object"};
  // {name, config}: the POSTed form; otherwise the flat map.
  bool wrapped = false;
  std::string error;
  for (auto field : top) {
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return {std::nullopt, "bad key"};
    if (key == "config") {
      od::object inner;
      if (field.value().get_object().get(inner) != simdjson::SUCCESS) {
        return {std::nullopt, "\"config\" is not an object"};
      }
      wrapped = true;
      error = read_map(inner);
      if (!error.empty()) return {std::nullopt, error};
    } else if (key == "name") {
      std::string_view name;
      if (field.value().get_string().get(name) != simdjson::SUCCESS) {
        return {std::nullopt, "\"name\" is not a string"};
      }
      c.name = name;
    } else if (!wrapped) {
      // A flat map: start over, reading every member as a key.
      c.entries.clear();
      c.name.clear();
      od::parser again;
      od::document doc2;
      if (again.iterate(padded).get(doc2) != simdjson::SUCCESS) return {std::nullopt, "not JSON"};
      od::object flat;
      if (doc2.get_object().get(flat) != simdjson::SUCCESS) return {std::nullopt, "not JSON"};
      error = read_map(flat);
      if (!error.empty()) return {std::nullopt, error};
      if (auto name = c.get("name")) c.name = *name;
      return {std::move(c), ""};
    }
  }
  if (!wrapped) return {std::nullopt, "no \"config\" object and no key"};
  if (c.name.empty()) {
    if (auto name = c.get("name")) c.name = *name;
  }
  return {std::move(c), ""};
}

}  // namespace sluice
