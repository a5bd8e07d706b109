#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/model/result.h"

namespace sluice {

// One part of a change sequence number: a signed 64-bit integer or a byte string.
using csn_part = std::variant<int64_t, std::string>;

// A change sequence number (SPEC §2): a tuple of typed parts, encoded so that byte order
// (memcmp, PostgreSQL bytea comparison) equals tuple order.
//
// Encoding, format version 1 — stored in replicas, so changing it is a breaking change:
//   byte 0            0x01 (format version)
//   integer part      0x01, then 8 bytes big-endian of (uint64)v with the sign bit flipped
//   string part       0x02, then the bytes with 0x00 escaped as 0x00 0xFF, then 0x00 0x01
// Integers order below strings at the same position; a tuple that is a prefix of another
// orders below it. The empty csn (no bytes) orders below every encoded one.
//
// Storage: encodings up to inline_capacity bytes (every built-in rule but long string
// positions: [1, file, pos] is 28 bytes, Oracle's [1, scn, rs_id, ssn] ~53) live inside the
// object, so copying a csn — the merge keeps one per column — does not allocate.
class csn {
 public:
  static constexpr uint8_t format_version = 1;
  static constexpr size_t inline_capacity = 56;

  csn() noexcept {}
  csn(const csn& other) { assign(other.bytes()); }
  csn(csn&& other) noexcept { steal(other); }
  csn& operator=(const csn& other) {
    if (this != &other) assign(other.bytes());
    return *this;
  }
  csn& operator=(csn&& other) noexcept {
    if (this != &other) {
      release();
      steal(other);
    }
    return *this;
  }
  ~csn() { release(); }

  // Validates an encoding read back from storage or from a fixture.
  static result<csn> from_bytes(std::string_view bytes);

  std::string_view bytes() const { return {data(), _size}; }
  bool empty() const { return _size == 0; }
  std::vector<csn_part> parts() const;
  std::string hex() const;

  friend bool operator==(const csn& a, const csn& b) { return a.bytes() == b.bytes(); }
  friend std::strong_ordering operator<=>(const csn& a, const csn& b) {
    return a.bytes().compare(b.bytes()) <=> 0;
  }

 private:
  friend class csn_builder;

  bool on_heap() const { return _capacity > inline_capacity; }
  const char* data() const { return on_heap() ? _storage.heap : _storage.local; }
  char* data() { return on_heap() ? _storage.heap : _storage.local; }
  void assign(std::string_view bytes);
  void append(std::string_view bytes);
  void push_back(char c) {
    if (_size == _capacity) grow(_size + 1);
    data()[_size++] = c;
  }
  void grow(size_t needed);
  void release() noexcept {
    if (on_heap()) delete[] _storage.heap;
    _capacity = inline_capacity;
    _size = 0;
  }
  void steal(csn& other) noexcept;

  uint32_t _size = 0;
  uint32_t _capacity = inline_capacity;  // above inline_capacity: the bytes are on the heap
  union storage {
    char local[inline_capacity];
    char* heap;
  } _storage;
};

// Builds a csn part by part; reusable after build() (it starts over). Its buffer is kept,
// so building does not allocate once it has seen the longest encoding.
class csn_builder {
 public:
  csn_builder();
  csn_builder& add(int64_t v);
  csn_builder& add(std::string_view s);
  csn build();

 private:
  csn _bytes;
};

}  // namespace sluice
