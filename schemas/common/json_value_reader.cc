#include "schemas/common/json_value_reader.h"
#include "schemas/common/json_text.h"

#include <algorithm>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sluice {

value_kind value_kind_of(json_kind kind) {
  switch (kind) {
    case json_kind::null:
      return value_kind::null;
    case json_kind::boolean:
      return value_kind::boolean;
    case json_kind::number:
      return value_kind::number;
    case json_kind::string:
      return value_kind::string;
    case json_kind::object:
    case json_kind::array:
      break;
  }
  return value_kind::json;
}

void assign_value(value& out, value_kind kind, std::string_view text) {
  out.kind = kind;
  // clear() then append() rather than assign(): assign() goes through the general
  // _M_replace (overlap checks, tail moves), append() into a cleared string with capacity
  // is a length check and a copy. Every column value of every message passes here.
  out.text.clear();
  if (kind != value_kind::null) out.text.append(text);
}

value to_value(const json_token& token) {
  switch (token.kind) {
    case json_kind::null:
      return value::null();
    case json_kind::boolean:
      return value::boolean(token.text == "true");
    case json_kind::number:
      return value::number(token.text);
    case json_kind::string:
      return value::string(token.text);
    case json_kind::object:
    case json_kind::array:
      break;
  }
  return value::json(token.text);
}
namespace {

using simdjson::ondemand::json_type;

json_kind kind_of(json_type t) {
  switch (t) {
    case json_type::array:
      return json_kind::array;
    case json_type::object:
      return json_kind::object;
    case json_type::number:
      return json_kind::number;
    case json_type::string:
      return json_kind::string;
    case json_type::boolean:
      return json_kind::boolean;
    case json_type::null:
      break;
  }
  return json_kind::null;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// At most 40 bytes of text for an error message.
std::string excerpt(std::string_view text) {
  constexpr size_t max = 40;
  return text.size() <= max ? std::string(text) : std::string(text.substr(0, max)) + "...";
}

// True when a backslash at text[at] starts the escape \u0000.
bool nul_escape_at(const char* text, size_t size, size_t at) {
  return size - at > 5 && std::memcmp(text + at + 1, "u0000", 5) == 0;
}

// Whether a string of the document may hold \u0000: only if its bytes hold a NUL or the
// escape "\u0000". A hit may be a false alarm ("\\u0000" is a backslash, then "u0000"):
// then every string is checked on its own. With SSE2 (x86-64's baseline) it looks at 64
// bytes a step and at their backslashes one by one only when there are some.
bool may_hold_nul(std::string_view document) {
  const char* text = document.data();
  const size_t size = document.size();
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i nul = _mm_setzero_si128();
  const __m128i backslash = _mm_set1_epi8('\\');
  const auto hits_in = [&](size_t at) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + at));
    return _mm_or_si128(_mm_cmpeq_epi8(chunk, nul), _mm_cmpeq_epi8(chunk, backslash));
  };
  for (; i + 64 <= size; i += 64) {
    const __m128i a = hits_in(i), b = hits_in(i + 16), c = hits_in(i + 32), d = hits_in(i + 48);
    if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) == 0) continue;
    uint64_t hits = static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(a))) |
                    static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(b))) << 16 |
                    static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(c))) << 32 |
                    static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(d))) << 48;
    while (hits != 0) {
      const size_t at = i + static_cast<size_t>(__builtin_ctzll(hits));
      if (text[at] == '\0' || nul_escape_at(text, size, at)) return true;
      hits &= hits - 1;
    }
  }
  // The rest: 16-byte steps, the last one overlapping bytes already seen (masked off).
  while (size >= 16 && i < size) {
    const size_t start = std::min(i, size - 16);
    auto hits = static_cast<unsigned>(_mm_movemask_epi8(hits_in(start)));
    hits &= ~((1u << (i - start)) - 1);
    while (hits != 0) {
      const size_t at = start + static_cast<size_t>(__builtin_ctz(hits));
      if (text[at] == '\0' || nul_escape_at(text, size, at)) return true;
      hits &= hits - 1;
    }
    i = start + 16;
  }
#endif
  for (; i < size; ++i) {
    if (text[i] == '\0' || (text[i] == '\\' && nul_escape_at(text, size, i))) return true;
  }
  return false;
}

error nul_error() {
  return make_error(error_code::nul_in_text,
                    "text contains \\u0000, which PostgreSQL cannot store");
}

// Advances p over a run of digits, eight at a time while eight bytes remain (timestamps in
// nanoseconds have 19 digits).
const char* skip_digits(const char* p, const char* end) {
  constexpr uint64_t high_nibbles = 0xF0F0F0F0F0F0F0F0ull;
  constexpr uint64_t threes = 0x3030303030303030ull;
  constexpr uint64_t sixes = 0x0606060606060606ull;
  while (end - p >= 8) {
    uint64_t x;
    std::memcpy(&x, p, 8);
    // Every byte is 0x30-0x39: its high nibble is 3, and still 3 after adding 6.
    if ((x & high_nibbles) != threes || ((x + sixes) & high_nibbles) != threes) break;
    p += 8;
  }
  while (p != end && is_digit(*p))
    ++p;
  return p;
}

}  // namespace

bool is_json_number(std::string_view t) {
  // Pointer steps with an exit as soon as the text ends: most numbers are integers.
  const char* p = t.data();
  const char* const end = p + t.size();
  if (p != end && *p == '-') ++p;
  if (p == end) return false;
  if (*p == '0') {
    ++p;
  } else if (is_digit(*p)) {
    p = skip_digits(p + 1, end);
  } else {
    return false;
  }
  if (p == end) return true;
  if (*p == '.') {
    const char* const digits = ++p;
    p = skip_digits(p, end);
    if (p == digits) return false;
    if (p == end) return true;
  }
  if (*p == 'e' || *p == 'E') {
    ++p;
    if (p != end && (*p == '+' || *p == '-')) ++p;
    const char* const digits = p;
    while (p != end && is_digit(*p))
      ++p;
    if (p == digits) return false;
  }
  return p == end;
}

std::string_view trim_json_whitespace(std::string_view text) {
  while (!text.empty()) {
    const char c = text.back();
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    text.remove_suffix(1);
  }
  return text;
}

error json_error(simdjson::error_code code, std::optional<size_t> at) {
  std::string message = "invalid JSON: ";
  message += simdjson::error_message(code);
  if (at) message += " (at byte " + std::to_string(*at) + ")";
  return make_error(error_code::invalid_json, std::move(message));
}

std::optional<error> check_json_text(std::string_view text, size_t max_depth) {
  // On-Demand reads a scalar document only as a scalar: as the one element of an array,
  // any value reads the same way. A second element ("1,2") is refused below.
  std::string wrapped;
  wrapped.reserve(text.size() + 2 + simdjson::SIMDJSON_PADDING);
  wrapped.push_back('[');
  wrapped.append(text);
  wrapped.push_back(']');
  const size_t size = wrapped.size();
  wrapped.resize(size + simdjson::SIMDJSON_PADDING);
  thread_local simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  const simdjson::padded_string_view padded(wrapped.data(), size, wrapped.size());
  if (auto code = parser.iterate(padded).get(doc)) return json_error(code);
  json_value_reader reader(max_depth + 1);
  reader.begin_document(std::string_view(wrapped.data(), size));
  simdjson::ondemand::array array;
  if (auto code = doc.get_array().get(array)) return json_error(code);
  size_t count = 0;
  for (auto element : array) {
    simdjson::ondemand::value v;
    if (auto code = element.get(v)) return json_error(code);
    json_token token;
    if (auto err = reader.read(v, token)) return err;
    ++count;
  }
  if (count != 1) return make_error(error_code::invalid_json, "not one JSON value");
  // Anything but whitespace after the array (`1] [2`) leaves a location to be at.
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == simdjson::SUCCESS) {
    return make_error(error_code::invalid_json, "text after the JSON value");
  }
  return std::nullopt;
}

error in_context(std::string_view where, error e) {
  e.message.insert(0, std::string(where) + ": ");
  return e;
}

std::optional<size_t> json_value_reader::offset_of(const char* at) const {
  if (at < _document.data() || at > _document.data() + _document.size()) return std::nullopt;
  const auto offset = static_cast<size_t>(at - _document.data());
  return offset >= _elided_at ? offset + _elided_bytes : offset;
}

error json_value_reader::fail(simdjson::error_code code, simdjson::ondemand::value& v) const {
  const char* at = nullptr;
  if (v.current_location().get(at) != simdjson::SUCCESS) return json_error(code);
  return json_error(code, offset_of(at));
}

error json_value_reader::fail(simdjson::error_code code, simdjson::ondemand::document& doc) const {
  const char* at = nullptr;
  if (doc.current_location().get(at) != simdjson::SUCCESS) return json_error(code);
  return json_error(code, offset_of(at));
}

void json_value_reader::begin_document(std::string_view document) {
  begin_document(document, 0, 0);
}

void json_value_reader::begin_document(std::string_view document, size_t elided_at,
                                       size_t elided_bytes) {
  _document = document;
  _elided_at = elided_at;
  _elided_bytes = elided_bytes;
  _nul_possible = may_hold_nul(document);
}

// Inlined into read(), read_value() and child(): most values are scalars.
[[gnu::always_inline]] inline std::optional<error> json_value_reader::scalar(
    simdjson::ondemand::value& v, json_kind kind, json_token& token) {
  switch (kind) {
    case json_kind::null: {
      bool is_null = false;
      if (auto code = v.is_null().get(is_null)) return fail(code, v);
      if (!is_null) {
        return make_error(error_code::invalid_json,
                          "invalid JSON: bad literal " + excerpt(v.raw_json_token()));
      }
      token.text = {};
      return std::nullopt;
    }
    case json_kind::boolean: {
      bool b = false;
      if (auto code = v.get_bool().get(b)) return fail(code, v);
      token.text = b ? "true" : "false";
      return std::nullopt;
    }
    case json_kind::number:
      // raw_json_token() keeps the whitespace up to the next structural character.
      token.text = trim_json_whitespace(v.raw_json_token());
      if (!is_json_number(token.text)) {
        return make_error(error_code::invalid_json,
                          "invalid JSON: bad number " + excerpt(token.text));
      }
      return std::nullopt;
    case json_kind::string:
      if (auto code = plain_string(v, token.text)) return fail(code, v);
      if (has_nul(token.text)) return nul_error();
      return std::nullopt;
    case json_kind::object:
    case json_kind::array:
      break;
  }
  return std::nullopt;
}

result<json_token> json_value_reader::read(simdjson::ondemand::value& v,
                                           std::vector<json_leaf>* leaves) {
  json_token out;
  if (auto err = read(v, out, leaves)) return std::move(*err);
  return out;
}

std::optional<error> json_value_reader::read(simdjson::ondemand::value& v, json_token& out,
                                             std::vector<json_leaf>* leaves) {
  json_type type;
  if (auto code = v.type().get(type)) return fail(code, v);
  out.kind = kind_of(type);
  if (out.is_scalar()) return scalar(v, out.kind, out);
  return container(v, out.kind, 1, leaves, &out);
}

result<value> json_value_reader::read_value(simdjson::ondemand::value& v) {
  json_token token;
  if (auto err = read(v, token)) return std::move(*err);
  return to_value(token);
}

std::optional<error> json_value_reader::read_value(simdjson::ondemand::value& v, value& out) {
  // read() and assign_value() in one: columns are the hottest values.
  json_type type;
  if (auto code = v.type().get(type)) return fail(code, v);
  json_token token{kind_of(type), {}};
  if (token.is_scalar()) {
    if (auto err = scalar(v, token.kind, token)) return err;
  } else if (auto err = container(v, token.kind, 1, nullptr, &token)) {
    return err;
  }
  assign_value(out, value_kind_of(token.kind), token.text);
  return std::nullopt;
}

std::optional<error> json_value_reader::skip(simdjson::ondemand::value& v) {
  json_token token;
  return read(v, token);
}

std::optional<error> json_value_reader::child(simdjson::ondemand::value& v, size_t depth,
                                              std::string_view name,
                                              std::vector<json_leaf>* leaves) {
  json_type type;
  if (auto code = v.type().get(type)) return fail(code, v);
  const json_kind kind = kind_of(type);
  if (kind == json_kind::object || kind == json_kind::array) {
    return container(v, kind, depth, leaves, nullptr);
  }
  json_token token{kind, {}};
  if (auto err = scalar(v, kind, token)) return err;
  if (leaves) leaves->push_back(json_leaf{name, token});
  return std::nullopt;
}

std::optional<error> json_value_reader::container(simdjson::ondemand::value& v, json_kind kind,
                                                  size_t depth, std::vector<json_leaf>* leaves,
                                                  json_token* out) {
  if (depth > _max_depth) {
    return make_error(error_code::too_deep,
                      "nesting deeper than " + std::to_string(_max_depth) + " levels");
  }
  const char* start = v.raw_json_token().data();
  if (kind == json_kind::object) {
    simdjson::ondemand::object object;
    if (auto code = v.get_object().get(object)) return fail(code, v);
    for (auto member : object) {
      if (auto code = member.error()) return fail(code, v);
      simdjson::ondemand::field& field = member.value_unsafe();
      std::string_view key;
      if (auto code = plain_key(field, key)) return fail(code, v);
      if (has_nul(key)) return nul_error();
      simdjson::ondemand::value& item = field.value();
      if (auto err = child(item, depth + 1, key, leaves)) return err;
    }
  } else {
    simdjson::ondemand::array array;
    if (auto code = v.get_array().get(array)) return fail(code, v);
    for (auto element : array) {
      if (auto code = element.error()) return fail(code, v);
      simdjson::ondemand::value& item = element.value_unsafe();
      if (auto err = child(item, depth + 1, {}, leaves)) return err;
    }
  }
  if (out) {
    // The iterator now stands on the structural character after the closing bracket.
    const char* end = nullptr;
    if (auto code = v.current_location().get(end)) return fail(code, v);
    out->text = trim_json_whitespace(std::string_view(start, static_cast<size_t>(end - start)));
  }
  return std::nullopt;
}

}  // namespace sluice
