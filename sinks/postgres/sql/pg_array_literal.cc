#include "sinks/postgres/sql/pg_array_literal.h"

#include <cstdint>

#include "core/model/base64.h"

namespace sluice {
namespace {

// Deeper nesting than PostgreSQL's 6 array dimensions is refused by the server anyway; the
// bound keeps a hostile value from exhausting the stack here.
constexpr int max_depth = 32;

class literal_writer {
 public:
  literal_writer(std::string& out, std::string_view json, array_elements elements)
      : _out(out), _in(json), _elements(elements) {}

  bool run() {
    skip_blanks();
    if (!at('[') || !array(1)) return false;
    skip_blanks();
    return _pos == _in.size();
  }

 private:
  bool at(char c) const { return _pos < _in.size() && _in[_pos] == c; }

  void skip_blanks() {
    while (_pos < _in.size() &&
           (_in[_pos] == ' ' || _in[_pos] == '\t' || _in[_pos] == '\n' || _in[_pos] == '\r'))
      ++_pos;
  }

  // At '[': the array as {…}.
  bool array(int depth) {
    if (depth > max_depth) return false;
    ++_pos;
    _out.push_back('{');
    skip_blanks();
    if (at(']')) {
      ++_pos;
      _out.push_back('}');
      return true;
    }
    for (;;) {
      skip_blanks();
      if (!element(depth)) return false;
      skip_blanks();
      if (at(',')) {
        ++_pos;
        _out.push_back(',');
        continue;
      }
      if (!at(']')) return false;
      ++_pos;
      _out.push_back('}');
      return true;
    }
  }

  bool element(int depth) {
    if (_pos >= _in.size()) return false;
    switch (_in[_pos]) {
      case '[':
        return array(depth + 1);
      case '"':
        _out.push_back('"');
        if (_elements == array_elements::base64_bytes ? !base64_string() : !string()) return false;
        _out.push_back('"');
        return true;
      case '{':
        return object();
      case 'n':
        if (!word("null")) return false;
        _out += "NULL";
        return true;
      case 't':
        if (!word("true")) return false;
        _out += "true";
        return true;
      case 'f':
        if (!word("false")) return false;
        _out += "false";
        return true;
      default:
        return number();
    }
  }

  bool word(std::string_view w) {
    if (_in.substr(_pos, w.size()) != w) return false;
    _pos += w.size();
    return true;
  }

  bool number() {
    const size_t start = _pos;
    if (at('-')) ++_pos;
    if (_pos >= _in.size() || _in[_pos] < '0' || _in[_pos] > '9') return false;
    while (_pos < _in.size()) {
      const char c = _in[_pos];
      if ((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
        ++_pos;
      } else {
        break;
      }
    }
    _out.append(_in.substr(start, _pos - start));
    return true;
  }

  // One character of a quoted array element: '"' and '\' are backslashed.
  void put(char c) {
    if (c == '"' || c == '\\') _out.push_back('\\');
    _out.push_back(c);
  }

  void put_utf8(uint32_t cp) {
    if (cp < 0x80) {
      put(static_cast<char>(cp));
    } else if (cp < 0x800) {
      _out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
      _out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
      _out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
      _out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      _out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
      _out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
      _out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
      _out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      _out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
  }

  bool hex4(uint32_t& cp) {
    if (_pos + 4 > _in.size()) return false;
    cp = 0;
    for (size_t i = 0; i < 4; ++i) {
      const char c = _in[_pos++];
      cp <<= 4;
      if (c >= '0' && c <= '9') {
        cp |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        cp |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        cp |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return false;
      }
    }
    return true;
  }

  // At '"': the string's text, unescaped from JSON, escaped for the array (no quotes).
  bool string() {
    ++_pos;
    while (_pos < _in.size()) {
      const char c = _in[_pos++];
      if (c == '"') return true;
      if (c != '\\') {
        put(c);
        continue;
      }
      if (_pos >= _in.size()) return false;
      switch (_in[_pos++]) {
        case '"':
          put('"');
          break;
        case '\\':
          put('\\');
          break;
        case '/':
          put('/');
          break;
        case 'b':
          put('\b');
          break;
        case 'f':
          put('\f');
          break;
        case 'n':
          put('\n');
          break;
        case 'r':
          put('\r');
          break;
        case 't':
          put('\t');
          break;
        case 'u': {
          uint32_t cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xd800 && cp <= 0xdbff) {  // a surrogate pair
            uint32_t low = 0;
            if (!word("\\u") || !hex4(low) || low < 0xdc00 || low > 0xdfff) return false;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          } else if (cp >= 0xdc00 && cp <= 0xdfff) {
            return false;
          }
          put_utf8(cp);
          break;
        }
        default:
          return false;
      }
    }
    return false;  // unterminated
  }

  // At '"': a base64 string's bytes as bytea's hex input, its backslash escaped for the array
  // ("\\x…"), decoded on the fly. JSON may escape '/' as "\/"; nothing else in base64 needs
  // an escape.
  bool base64_string() {
    static constexpr char digits[] = "0123456789abcdef";
    ++_pos;
    _out += "\\\\x";
    uint32_t acc = 0;
    int bits = 0;
    size_t count = 0;  // characters, padding included
    size_t data = 0;   // base64 digits
    bool padding = false;
    while (_pos < _in.size()) {
      char c = _in[_pos++];
      if (c == '"') return data % 4 != 1 && (!padding || count % 4 == 0);
      if (c == '\\') {
        if (_pos >= _in.size() || _in[_pos] != '/') return false;
        c = _in[_pos++];
      }
      if (c == '=') {
        padding = true;
        ++count;
        continue;
      }
      const int d = base64_digit(c);
      if (d < 0 || padding) return false;
      ++count;
      ++data;
      acc = ((acc << 6) | static_cast<uint32_t>(d)) & 0xffffff;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        const auto b = static_cast<unsigned char>((acc >> bits) & 0xff);
        _out.push_back(digits[b >> 4]);
        _out.push_back(digits[b & 0x0f]);
      }
    }
    return false;  // unterminated
  }

  // At '{': the object's JSON text as one quoted element (strings inside kept as JSON).
  bool object() {
    const size_t start = _pos;
    int depth = 0;
    bool in_string = false;
    while (_pos < _in.size()) {
      const char c = _in[_pos++];
      if (in_string) {
        if (c == '\\') {
          if (_pos >= _in.size()) return false;
          ++_pos;
        } else if (c == '"') {
          in_string = false;
        }
        continue;
      }
      if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) {
          if (c != '}') return false;
          _out.push_back('"');
          for (char o : _in.substr(start, _pos - start))
            put(o);
          _out.push_back('"');
          return true;
        }
      }
    }
    return false;
  }

  std::string& _out;
  std::string_view _in;
  array_elements _elements;
  size_t _pos = 0;
};

}  // namespace

bool append_pg_array_literal(std::string& out, std::string_view json, array_elements elements) {
  return literal_writer(out, json, elements).run();
}

}  // namespace sluice
