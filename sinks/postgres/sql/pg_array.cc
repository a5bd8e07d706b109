#include "sinks/postgres/sql/pg_array.h"

namespace sluice {

void pg_array::clear() {
  _text.assign(1, '{');
  _count = 0;
}

void pg_array::separate() {
  if (_count++ > 0) _text.push_back(',');
}

void pg_array::add_null() {
  separate();
  _text += "NULL";
}

void pg_array::add(std::string_view text) {
  separate();
  _text.push_back('"');
  for (char c : text) {
    // Inside a quoted element only the quote and the backslash are special.
    if (c == '"' || c == '\\') _text.push_back('\\');
    _text.push_back(c);
  }
  _text.push_back('"');
}

namespace {

void append_hex(std::string& out, std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 0x0f]);
  }
}

}  // namespace

std::string bytea_hex(std::string_view bytes) {
  std::string out = "\\x";
  out.reserve(2 + 2 * bytes.size());
  append_hex(out, bytes);
  return out;
}

void pg_array::add_bytea(std::string_view bytes) {
  separate();
  _text += "\"\\\\x";  // "\\x: the element's backslash, escaped
  append_hex(_text, bytes);
  _text.push_back('"');
}

void pg_array::add_int(int64_t v) {
  separate();
  _text += std::to_string(v);
}

void pg_array::add_bool(bool v) {
  separate();
  _text += v ? "t" : "f";
}

std::string pg_array::take() {
  _text.push_back('}');
  std::string out = std::move(_text);
  clear();
  return out;
}

}  // namespace sluice
