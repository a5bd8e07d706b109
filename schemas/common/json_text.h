#pragma once

#include <cstddef>
#include <string_view>

#include <simdjson.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sluice {

// The length of the text of a JSON string that starts at p (just after its opening quote) when
// it holds no escape, else npos: then its text is its bytes, which simdjson's unescape would
// only copy into the parser's string buffer (keys and strings unescaped that way were ~15% of
// decode time). p is inside a document simdjson iterates, which stage 1 found to close every
// string, and that document is followed by simdjson's padding, so 16-byte loads that start
// before the closing quote stay in bounds.
inline size_t plain_string_length(const char* p) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  for (size_t i = 0;; i += 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const auto q = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, quote)));
    const auto b = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, backslash)));
    if ((q | b) == 0) continue;
    const unsigned first = (q | b) & (0u - (q | b));  // the lowest hit
    return (first & q) ? i + static_cast<size_t>(__builtin_ctz(first)) : std::string_view::npos;
  }
#else
  for (size_t i = 0;; ++i) {
    if (p[i] == '"') return i;
    if (p[i] == '\\') return std::string_view::npos;
  }
#endif
}

// field.unescaped_key(), without the copy when the key holds no escape. The key then views the
// document's bytes rather than the parser's string buffer: both live until the document's
// buffer and parser are given the next document.
inline simdjson::error_code plain_key(simdjson::ondemand::field& field, std::string_view& key) {
  const char* p = field.key().raw();
  if (const size_t n = plain_string_length(p); n != std::string_view::npos) {
    key = std::string_view(p, n);
    return simdjson::SUCCESS;
  }
  return field.unescaped_key().get(key);
}

// v.get_string() for a value known to be a string (its type() said so), likewise.
inline simdjson::error_code plain_string(simdjson::ondemand::value& v, std::string_view& text) {
  const char* p = v.raw_json_token().data() + 1;  // a peek: after the opening quote
  if (const size_t n = plain_string_length(p); n != std::string_view::npos) {
    simdjson::ondemand::raw_json_string raw;  // checks the type and moves past the string
    if (auto code = v.get_raw_json_string().get(raw)) return code;
    text = std::string_view(p, n);
    return simdjson::SUCCESS;
  }
  return v.get_string().get(text);
}

}  // namespace sluice
