#include "core/model/csn.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace sluice {
namespace {

constexpr uint8_t tag_int = 0x01;
constexpr uint8_t tag_string = 0x02;
constexpr uint64_t sign_bit = uint64_t{1} << 63;

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
  c.assign(bytes);
  return c;
}

std::vector<csn_part> csn::parts() const {
  std::vector<csn_part> out;
  if (!empty()) decode_parts(bytes(), &out);
  return out;
}

std::string csn::hex() const {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size_t{_size} * 2);
  for (char c : bytes()) {
    const auto u = static_cast<uint8_t>(c);
    out.push_back(digits[u >> 4]);
    out.push_back(digits[u & 0xf]);
  }
  return out;
}

csn_builder::csn_builder() {
  _bytes.push_back(static_cast<char>(csn::format_version));
}

// The builder's encoders write straight into its csn (friend access), so the hot path is
// pointer arithmetic on the inline buffer.
csn_builder& csn_builder::add(int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v) ^ sign_bit;
  if (_bytes._size + 9 <= _bytes._capacity) {  // the usual case: written in place
    char* out = _bytes.data() + _bytes._size;
    out[0] = static_cast<char>(tag_int);
    // Big-endian in one store (GCC did not merge the byte loop below into one).
    const uint64_t big = std::endian::native == std::endian::little ? __builtin_bswap64(u) : u;
    std::memcpy(out + 1, &big, sizeof big);
    _bytes._size += 9;
    return *this;
  }
  char part[9];
  part[0] = static_cast<char>(tag_int);
  for (int k = 0; k < 8; ++k)
    part[1 + k] = static_cast<char>((u >> (56 - 8 * k)) & 0xff);
  _bytes.append(std::string_view(part, sizeof part));
  return *this;
}

csn_builder& csn_builder::add(std::string_view s) {
  _bytes.push_back(static_cast<char>(tag_string));
  // Runs between NULs are appended whole; each NUL becomes 0x00 0xff.
  while (!s.empty()) {
    const void* nul = std::memchr(s.data(), '\0', s.size());
    if (!nul) {
      _bytes.append(s);
      break;
    }
    const size_t at = static_cast<size_t>(static_cast<const char*>(nul) - s.data());
    _bytes.append(s.substr(0, at + 1));
    _bytes.push_back(static_cast<char>(0xff));
    s.remove_prefix(at + 1);
  }
  _bytes.push_back('\0');
  _bytes.push_back(static_cast<char>(0x01));
  return *this;
}

csn csn_builder::build() {
  csn c(_bytes);
  _bytes._size = 1;  // the version byte stays; the buffer is kept
  return c;
}

void csn::assign(std::string_view bytes) {
  _size = 0;
  append(bytes);
}

void csn::append(std::string_view bytes) {
  if (bytes.empty()) return;
  if (_size + bytes.size() > _capacity) grow(_size + bytes.size());
  std::memcpy(data() + _size, bytes.data(), bytes.size());
  _size += static_cast<uint32_t>(bytes.size());
}

void csn::grow(size_t needed) {
  if (needed > UINT32_MAX) throw std::length_error("csn longer than 4 GiB");
  const size_t capacity = std::max<size_t>(needed, size_t{_capacity} * 2);
  const size_t clamped = std::min<size_t>(capacity, UINT32_MAX);
  char* bytes = new char[clamped];
  std::memcpy(bytes, data(), _size);
  if (on_heap()) delete[] _storage.heap;
  _storage.heap = bytes;
  _capacity = static_cast<uint32_t>(clamped);
}

void csn::steal(csn& other) noexcept {
  _size = other._size;
  _capacity = other._capacity;
  if (other.on_heap()) {
    _storage.heap = other._storage.heap;
  } else {
    std::memcpy(_storage.local, other._storage.local, other._size);
  }
  other._size = 0;
  other._capacity = inline_capacity;
}

}  // namespace sluice
