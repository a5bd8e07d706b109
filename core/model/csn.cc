#include "core/model/csn.h"

namespace sluice {
namespace {

constexpr uint8_t tag_int = 0x01;
constexpr uint8_t tag_string = 0x02;
constexpr uint64_t sign_bit = uint64_t{1} << 63;

void append_int(std::string& out, int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v) ^ sign_bit;
  out.push_back(static_cast<char>(tag_int));
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((u >> shift) & 0xff));
  }
}

void append_string(std::string& out, std::string_view s) {
  out.push_back(static_cast<char>(tag_string));
  for (char c : s) {
    out.push_back(c);
    if (c == '\0') out.push_back(static_cast<char>(0xff));
  }
  out.push_back('\0');
  out.push_back(static_cast<char>(0x01));
}

// Decodes parts starting after the version byte; returns false on a malformed encoding.
bool decode_parts(std::string_view b, std::vector<csn_part>* out) {
  size_t i = 1;
  while (i < b.size()) {
    const auto tag = static_cast<uint8_t>(b[i++]);
    if (tag == tag_int) {
      if (b.size() - i < 8) return false;
      uint64_t u = 0;
      for (int k = 0; k < 8; ++k)
        u = (u << 8) | static_cast<uint8_t>(b[i++]);
      if (out) out->emplace_back(static_cast<int64_t>(u ^ sign_bit));
    } else if (tag == tag_string) {
      std::string s;
      bool closed = false;
      while (i < b.size()) {
        const char c = b[i++];
        if (c != '\0') {
          s.push_back(c);
          continue;
        }
        if (i >= b.size()) return false;
        const auto next = static_cast<uint8_t>(b[i++]);
        if (next == 0xff) {
          s.push_back('\0');
        } else if (next == 0x01) {
          closed = true;
          break;
        } else {
          return false;
        }
      }
      if (!closed) return false;
      if (out) out->emplace_back(std::move(s));
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

result<csn> csn::from_bytes(std::string_view bytes) {
  if (bytes.empty()) return csn{};
  if (static_cast<uint8_t>(bytes[0]) != format_version) {
    return make_error(error_code::bad_csn, "unknown csn format version " +
                                               std::to_string(static_cast<uint8_t>(bytes[0])));
  }
  if (!decode_parts(bytes, nullptr)) {
    return make_error(error_code::bad_csn, "malformed csn encoding");
  }
  csn c;
  c._bytes.assign(bytes);
  return c;
}

std::vector<csn_part> csn::parts() const {
  std::vector<csn_part> out;
  if (!_bytes.empty()) decode_parts(_bytes, &out);
  return out;
}

std::string csn::hex() const {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(_bytes.size() * 2);
  for (char c : _bytes) {
    const auto u = static_cast<uint8_t>(c);
    out.push_back(digits[u >> 4]);
    out.push_back(digits[u & 0xf]);
  }
  return out;
}

csn_builder::csn_builder() {
  _bytes.push_back(static_cast<char>(csn::format_version));
}

csn_builder& csn_builder::add(int64_t v) {
  append_int(_bytes, v);
  return *this;
}

csn_builder& csn_builder::add(std::string_view s) {
  append_string(_bytes, s);
  return *this;
}

csn csn_builder::build() {
  csn c;
  c._bytes = std::move(_bytes);
  _bytes.clear();
  _bytes.push_back(static_cast<char>(csn::format_version));
  return c;
}

}  // namespace sluice
