#include "schemas/common/kcat_line_reader.h"

#include <cstdint>
#include <cstring>
#include <limits>

namespace sluice {
namespace {

using simdjson::ondemand::json_type;

const char* kind_name(json_type t) {
  switch (t) {
    case json_type::array:
      return "an array";
    case json_type::object:
      return "an object";
    case json_type::number:
      return "a number";
    case json_type::string:
      return "a string";
    case json_type::boolean:
      return "a boolean";
    case json_type::null:
      break;
  }
  return "null";
}

error member_error(error_code code, std::string_view member, std::string_view what) {
  return make_error(code, "\"" + std::string(member) + "\" " + std::string(what));
}

// Replaces the lead byte of every invalid UTF-8 sequence with '?': the masked copy has the
// same length and the same JSON structure (no byte becomes a quote or a backslash), so
// offsets into it are offsets into the original.
void mask_invalid_utf8(std::string& s) {
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte (Unicode table 3-7)
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c == 0xE0) {
      len = 3, lo = 0xA0;
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
      len = 3;
    } else if (c == 0xED) {
      len = 3, hi = 0x9F;
    } else if (c == 0xF0) {
      len = 4, lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
      len = 4;
    } else if (c == 0xF4) {
      len = 4, hi = 0x8F;
    }
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    }
    if (ok) {
      i += len;
    } else {
      s[i++] = '?';
    }
  }
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The four hex digits at in[i..i+4), or -1.
int32_t hex4(std::string_view in, size_t i) {
  if (i + 4 > in.size()) return -1;
  int32_t v = 0;
  for (size_t k = 0; k < 4; ++k) {
    const int d = hex_digit(in[i + k]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Resolves the JSON escapes of a string's contents (between its quotes), copying every
// other byte as it is. Returns the offset in `in` of a bad escape, and what is wrong.
std::optional<std::pair<size_t, const char*>> unescape(std::string_view in, std::string& out) {
  out.clear();
  out.reserve(in.size());
  size_t i = 0;
  while (i < in.size()) {
    const void* slash = std::memchr(in.data() + i, '\\', in.size() - i);
    const size_t next =
        slash ? static_cast<size_t>(static_cast<const char*>(slash) - in.data()) : in.size();
    out.append(in.data() + i, next - i);
    i = next;
    if (i == in.size()) break;
    const size_t at = i;
    if (i + 1 >= in.size()) return std::pair(at, "unterminated escape");
    const char e = in[i + 1];
    i += 2;
    switch (e) {
      case '"':
      case '\\':
      case '/':
        out.push_back(e);
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        int32_t cp = hex4(in, i);
        if (cp < 0) return std::pair(at, "bad \\u escape");
        i += 4;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return std::pair(at, "lone low surrogate");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          const int32_t low =
              i + 1 < in.size() && in[i] == '\\' && in[i + 1] == 'u' ? hex4(in, i + 2) : -1;
          if (low < 0xDC00 || low > 0xDFFF) return std::pair(at, "lone high surrogate");
          i += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        append_utf8(out, static_cast<uint32_t>(cp));
        break;
      }
      default:
        return std::pair(at, "invalid escape");
    }
  }
  return std::nullopt;
}

enum member : uint8_t {
  m_topic,
  m_partition,
  m_offset,
  m_ts,
  m_tstype,
  m_key,
  m_payload,
  m_headers,
  m_count
};

std::optional<member> known_member(std::string_view name) {
  if (name == "topic") return m_topic;
  if (name == "partition") return m_partition;
  if (name == "offset") return m_offset;
  if (name == "ts") return m_ts;
  if (name == "tstype") return m_tstype;
  if (name == "key") return m_key;
  if (name == "payload") return m_payload;
  if (name == "headers") return m_headers;
  return std::nullopt;
}

result<int64_t> read_int(simdjson::ondemand::value v, std::string_view name) {
  json_type type;
  if (auto code = v.type().get(type)) return json_error(code);
  if (type != json_type::number) {
    return member_error(error_code::wrong_type, name,
                        std::string("must be an integer, not ") + kind_name(type));
  }
  int64_t n = 0;
  if (v.get_int64().get(n) != simdjson::SUCCESS) {
    return member_error(
        error_code::wrong_type, name,
        "must be a 64-bit integer, not " + std::string(trim_json_whitespace(v.raw_json_token())));
  }
  return n;
}

}  // namespace

raw_message kcat_message::view() const {
  raw_message r;
  r.topic = topic;
  r.partition = partition;
  r.offset = offset;
  r.timestamp = timestamp;
  if (key) r.key = std::string_view(*key);
  if (payload) r.value = std::string_view(*payload);
  r.headers.reserve(headers.size());
  for (const auto& [name, value] : headers) {
    r.headers.emplace_back(name, value ? std::optional<std::string_view>(*value) : std::nullopt);
  }
  return r;
}

std::optional<error> kcat_line_reader::read(std::string_view line, kcat_message& out) {
  line = trim_json_whitespace(line);
  out.topic.clear();
  out.partition = partition_id{0};
  out.offset = kafka_offset{0};
  out.timestamp = timestamp_ns{0};
  out.timestamp_ms = -1;
  out.clock = timestamp_type::create_time;
  out.key.reset();
  out.payload.reset();
  out.headers.clear();
  if (line.empty()) return make_error(error_code::invalid_json, "empty line");

  _line = line;
  std::string_view parsed = line;
  if (!simdjson::validate_utf8(line)) {
    _sanitized.assign(line);
    mask_invalid_utf8(_sanitized);
    parsed = _sanitized;
  }
  const simdjson::padded_string_view padded = _buffer.assign(parsed);
  _parsed = padded.data();
  _values.begin_document(std::string_view(padded.data(), padded.length()));
  simdjson::ondemand::document doc;
  if (auto code = _parser.iterate(padded).get(doc)) return json_error(code);
  simdjson::ondemand::object root;
  if (auto code = doc.get_object().get(root)) {
    if (code == simdjson::INCORRECT_TYPE) {
      return make_error(error_code::wrong_type,
                        "the line is not a JSON object (kcat -J prints one per message)");
    }
    return json_error(code);
  }
  bool seen[m_count] = {};
  for (auto field_result : root) {
    if (auto code = field_result.error()) return _values.fail(code, doc);
    simdjson::ondemand::field& field = field_result.value_unsafe();
    std::string_view name;
    if (auto code = field.unescaped_key().get(name)) return _values.fail(code, doc);
    if (auto m = known_member(name)) {
      if (seen[*m]) return member_error(error_code::invalid_json, name, "appears twice");
      seen[*m] = true;
    }
    if (auto err = read_member(name, field.value(), out)) return err;
  }
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == simdjson::SUCCESS) {
    return make_error(error_code::invalid_json, "invalid JSON: content after the object (at byte " +
                                                    std::to_string(rest - _parsed) + ")");
  }
  static constexpr std::pair<member, const char*> required[] = {
      {m_topic, "topic"}, {m_partition, "partition"}, {m_offset, "offset"}, {m_payload, "payload"}};
  for (const auto& [m, name] : required) {
    if (seen[m]) continue;
    return make_error(error_code::missing_field,
                      std::string("missing \"") + name + "\" (not a kcat -J line?)");
  }
  return std::nullopt;
}

std::optional<error> kcat_line_reader::read_member(std::string_view name,
                                                   simdjson::ondemand::value v, kcat_message& out) {
  if (name == "topic") {
    if (auto err = read_string(v, out.topic)) return in_context("\"topic\"", std::move(*err));
    if (out.topic.empty()) return member_error(error_code::missing_field, name, "is empty");
  } else if (name == "partition") {
    auto n = read_int(v, name);
    if (!n) return n.err();
    if (*n < 0 || *n > std::numeric_limits<int32_t>::max()) {
      return member_error(error_code::wrong_type, name, "is out of range: " + std::to_string(*n));
    }
    out.partition = partition_id{static_cast<int32_t>(*n)};
  } else if (name == "offset") {
    auto n = read_int(v, name);
    if (!n) return n.err();
    if (*n < 0) return member_error(error_code::wrong_type, name, "is negative");
    out.offset = kafka_offset{*n};
  } else if (name == "ts") {
    auto n = read_int(v, name);
    if (!n) return n.err();
    // Kept as printed: an absurd one is the message's problem, not the line's (prepare
    // dead-letters it with its origin, as `run` would).
    constexpr int64_t max_ms = std::numeric_limits<int64_t>::max() / 1'000'000;
    out.timestamp_ms = *n;
    out.timestamp = timestamp_ns{*n > 0 && *n <= max_ms ? *n * 1'000'000 : 0};
  } else if (name == "tstype") {
    std::string type;
    if (auto err = read_string(v, type)) return in_context("\"tstype\"", std::move(*err));
    if (type == "logappend") out.clock = timestamp_type::log_append_time;
  } else if (name == "key") {
    if (auto err = read_optional_string(v, out.key)) return in_context("\"key\"", *err);
  } else if (name == "payload") {
    if (auto err = read_optional_string(v, out.payload)) return in_context("\"payload\"", *err);
  } else if (name == "headers") {
    if (auto err = read_headers(v, out)) return in_context("\"headers\"", *err);
  } else if (name == "key_error" || name == "payload_error") {
    std::string text;
    if (auto err = read_string(v, text)) return in_context(name, *err);
    return make_error(error_code::unsupported,
                      "kcat could not deserialize the " +
                          std::string(name == "key_error" ? "key" : "payload") + ": " + text);
  } else if (auto err = _values.skip(v)) {  // broker, members of later kcat versions
    return in_context("\"" + std::string(name) + "\"", *err);
  }
  return std::nullopt;
}

std::optional<error> kcat_line_reader::read_string(simdjson::ondemand::value v, std::string& out) {
  json_type type;
  if (auto code = v.type().get(type)) return _values.fail(code, v);
  if (type != json_type::string) {
    return make_error(error_code::wrong_type,
                      std::string("must be a string, not ") + kind_name(type));
  }
  // The token as simdjson delimited it, unescaped from the original bytes at the same offset.
  const std::string_view token = trim_json_whitespace(v.raw_json_token());
  if (token.size() < 2 || token.back() != '"') {
    return make_error(error_code::invalid_json, "invalid JSON: unterminated string");
  }
  const size_t begin = static_cast<size_t>(token.data() + 1 - _parsed);
  const std::string_view contents = _line.substr(begin, token.size() - 2);
  if (auto bad = unescape(contents, out)) {
    return make_error(error_code::invalid_json, "invalid JSON: " + std::string(bad->second) +
                                                    " (at byte " +
                                                    std::to_string(begin + bad->first) + ")");
  }
  return std::nullopt;
}

std::optional<error> kcat_line_reader::read_optional_string(simdjson::ondemand::value v,
                                                            std::optional<std::string>& out) {
  json_type type;
  if (auto code = v.type().get(type)) return _values.fail(code, v);
  if (type == json_type::null) {
    if (auto err = _values.skip(v)) return err;  // checks the literal
    out.reset();
    return std::nullopt;
  }
  if (type != json_type::string) {
    return make_error(error_code::wrong_type,
                      std::string("must be a string or null, not ") + kind_name(type) +
                          " (kcat's Avro-decoded output, -s avro, cannot be replayed: the "
                          "decoders take the message bytes)");
  }
  if (!out) out.emplace();
  return read_string(v, *out);
}

std::optional<error> kcat_line_reader::read_headers(simdjson::ondemand::value v,
                                                    kcat_message& out) {
  json_type type;
  if (auto code = v.type().get(type)) return _values.fail(code, v);
  if (type == json_type::array) {
    // ["name1", "value1", "name2", null, ...]
    simdjson::ondemand::array array;
    if (auto code = v.get_array().get(array)) return _values.fail(code, v);
    bool expect_name = true;
    for (auto element : array) {
      if (auto code = element.error()) return _values.fail(code, v);
      simdjson::ondemand::value& item = element.value_unsafe();
      if (expect_name) {
        out.headers.emplace_back();
        if (auto err = read_string(item, out.headers.back().first)) {
          return in_context("header name", *err);
        }
      } else if (auto err = read_optional_string(item, out.headers.back().second)) {
        return in_context("header \"" + out.headers.back().first + "\"", *err);
      }
      expect_name = !expect_name;
    }
    if (!expect_name) {
      return make_error(error_code::invalid_json,
                        "header \"" + out.headers.back().first + "\" has no value");
    }
    return std::nullopt;
  }
  if (type == json_type::object) {
    // kcat's map form: {"name1": ["value1", ...], ...}
    simdjson::ondemand::object object;
    if (auto code = v.get_object().get(object)) return _values.fail(code, v);
    for (auto member : object) {
      if (auto code = member.error()) return _values.fail(code, v);
      simdjson::ondemand::field& field = member.value_unsafe();
      std::string_view name;
      if (auto code = field.unescaped_key().get(name)) return _values.fail(code, v);
      const std::string header(name);
      simdjson::ondemand::array values;
      if (field.value().get_array().get(values) != simdjson::SUCCESS) {
        return make_error(error_code::wrong_type,
                          "header \"" + header + "\" must be an array of values");
      }
      for (auto element : values) {
        if (auto code = element.error()) return _values.fail(code, v);
        simdjson::ondemand::value& item = element.value_unsafe();
        out.headers.emplace_back(header, std::nullopt);
        if (auto err = read_optional_string(item, out.headers.back().second)) {
          return in_context("header \"" + header + "\"", *err);
        }
      }
    }
    return std::nullopt;
  }
  if (type == json_type::null) return _values.skip(v);
  return make_error(error_code::wrong_type,
                    std::string("must be an array or an object, not ") + kind_name(type));
}

}  // namespace sluice
