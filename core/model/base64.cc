#include "core/model/base64.h"

#include <cstdint>

namespace sluice {
namespace {

constexpr char base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

bool decode_base64(std::string_view text, std::string& out) {
  out.clear();
  while (!text.empty() && text.back() == '=')
    text.remove_suffix(1);
  if (text.size() % 4 == 1) return false;
  out.reserve(text.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const int d = base64_digit(c);
    if (d < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return true;
}

std::string encode_base64(std::string_view bytes) {
  std::string out;
  append_base64(out, bytes);
  return out;
}

void append_base64(std::string& out, std::string_view bytes) {
  out.reserve(out.size() + (bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) |
                       (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6)
      out.push_back(base64_alphabet[(v >> shift) & 63]);
  }
  if (i < bytes.size()) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out.push_back(base64_alphabet[(v >> 18) & 63]);
    out.push_back(base64_alphabet[(v >> 12) & 63]);
    out.push_back(i + 1 < bytes.size() ? base64_alphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
}

}  // namespace sluice
