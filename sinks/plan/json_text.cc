#include "sinks/plan/json_text.h"

#include <cstdint>

namespace sluice {

std::string key_json(const std::vector<std::string>& names, const std::vector<value>& values) {
  std::string out = "{";
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    if (i > 0) out.push_back(',');
    append_json_string(out, names[i]);
    out.push_back(':');
    append_json_value(out, values[i]);
  }
  out.push_back('}');
  return out;
}

bool is_storable_text(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b == 0) return false;
    if (b < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0;
    if ((b & 0xe0) == 0xc0) {
      len = 2;
      cp = b & 0x1f;
    } else if ((b & 0xf0) == 0xe0) {
      len = 3;
      cp = b & 0x0f;
    } else if ((b & 0xf8) == 0xf0) {
      len = 4;
      cp = b & 0x07;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3f);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
      return false;
    }
    i += len;
  }
  return true;
}

namespace {

void append_hex(std::string& out, std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  out.push_back('"');
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 0x0f]);
  }
  out.push_back('"');
}

// "field":"text" when the bytes are text, "field_hex":"0a0b" otherwise.
void append_bytes_field(std::string& out, std::string_view field, std::string_view bytes) {
  const bool text = is_storable_text(bytes);
  out.push_back('"');
  out += field;
  out += text ? "\":" : "_hex\":";
  if (text) {
    append_json_string(out, bytes);
  } else {
    append_hex(out, bytes);
  }
}

}  // namespace

std::string headers_json(
    const std::vector<std::pair<std::string, std::optional<std::string>>>& headers) {
  std::string out = "[";
  for (size_t i = 0; i < headers.size(); ++i) {
    const auto& [name, v] = headers[i];
    if (i > 0) out.push_back(',');
    out.push_back('{');
    append_bytes_field(out, "key", name);
    if (v) {
      out.push_back(',');
      append_bytes_field(out, "value", *v);
    } else {
      out += ",\"value\":null";
    }
    out.push_back('}');
  }
  out.push_back(']');
  return out;
}

}  // namespace sluice
