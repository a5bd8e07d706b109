#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

namespace sluice {

// Reads Avro binary encoding's primitives (Avro 1.11 spec, "Binary Encoding") from bytes in
// memory, each bounds-checked: a read that does not fit the bytes left, or a varint longer
// than 10 bytes, returns false and leaves the cursor where it failed. No allocation.
//
// Used to decode records straight into views (debezium_avro_reader) where Avro C's generic
// values cost two thirds of the decode time (docs/avro.md, "Measured"): Avro C still parses
// and checks every schema; this only reads the values a checked schema describes.
class avro_binary_cursor {
 public:
  explicit avro_binary_cursor(std::string_view bytes) : _in(bytes) {}

  size_t left() const { return _in.size(); }
  std::string_view rest() const { return _in; }

  // long and int: zig-zag varints; an int must fit 32 bits.
  bool read_long(int64_t& out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (_in.empty()) return false;
      const auto b = static_cast<uint8_t>(_in.front());
      _in.remove_prefix(1);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        out = static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
        return true;
      }
    }
    return false;
  }
  bool read_int(int32_t& out) {
    int64_t v = 0;
    if (!read_long(v) || v < INT32_MIN || v > INT32_MAX) return false;
    out = static_cast<int32_t>(v);
    return true;
  }
  // boolean: one byte, 0 or 1.
  bool read_boolean(bool& out) {
    if (_in.empty() || static_cast<uint8_t>(_in.front()) > 1) return false;
    out = _in.front() == 1;
    _in.remove_prefix(1);
    return true;
  }
  // float and double: little-endian IEEE 754.
  template <typename T>
  bool read_floating(T& out) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8);
    if (_in.size() < sizeof(T)) return false;
    unsigned char b[sizeof(T)];
    std::memcpy(b, _in.data(), sizeof(T));
    if constexpr (std::endian::native == std::endian::big) {
      for (size_t i = 0; i < sizeof(T) / 2; ++i)
        std::swap(b[i], b[sizeof(T) - 1 - i]);
    }
    std::memcpy(&out, b, sizeof(T));
    _in.remove_prefix(sizeof(T));
    return true;
  }
  // bytes and string: a long length, then that many bytes (a view into the input).
  bool read_bytes(std::string_view& out) {
    int64_t n = 0;
    if (!read_long(n) || n < 0 || static_cast<uint64_t>(n) > _in.size()) return false;
    return read_fixed(static_cast<size_t>(n), out);
  }
  bool read_fixed(size_t n, std::string_view& out) {
    if (n > _in.size()) return false;
    out = _in.substr(0, n);
    _in.remove_prefix(n);
    return true;
  }

 private:
  std::string_view _in;
};

}  // namespace sluice
