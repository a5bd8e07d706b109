#pragma once

#include <string>
#include <string_view>

namespace sluice {

// The value (0..63) of one standard base64 digit (RFC 4648), or -1 when c is none (padding
// '=' included): for decoders that walk base64 text themselves, escapes and all.
constexpr int base64_digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Standard base64 (RFC 4648, with or without padding). False when text is not base64.
bool decode_base64(std::string_view text, std::string& out);
// Standard base64 with padding.
std::string encode_base64(std::string_view bytes);
// The same, appended to out.
void append_base64(std::string& out, std::string_view bytes);

}  // namespace sluice
