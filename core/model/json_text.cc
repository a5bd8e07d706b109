#include "core/model/json_text.h"

#include "core/model/base64.h"

namespace sluice {

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char digits[] = "0123456789abcdef";
  out.push_back('"');
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (b < 0x20) {
          out += "\\u00";
          out.push_back(digits[b >> 4]);
          out.push_back(digits[b & 0x0f]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void append_json_value(std::string& out, const value& v) {
  switch (v.kind) {
    case value_kind::absent:
    case value_kind::null:
      out += "null";
      break;
    case value_kind::number:
    case value_kind::boolean:
    case value_kind::json:
      out += v.text;
      break;
    case value_kind::string:
      append_json_string(out, v.text);
      break;
    case value_kind::bytes:
      // JSON has no bytes: base64 text, as Debezium's JsonConverter writes them.
      out.push_back('"');
      append_base64(out, v.text);
      out.push_back('"');
      break;
  }
}

}  // namespace sluice
