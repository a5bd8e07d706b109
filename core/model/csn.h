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
class csn {
 public:
  static constexpr uint8_t format_version = 1;

  csn() = default;
  // Validates an encoding read back from storage or from a fixture.
  static result<csn> from_bytes(std::string_view bytes);

  const std::string& bytes() const { return _bytes; }
  bool empty() const { return _bytes.empty(); }
  std::vector<csn_part> parts() const;
  std::string hex() const;

  friend bool operator==(const csn& a, const csn& b) { return a._bytes == b._bytes; }
  friend std::strong_ordering operator<=>(const csn& a, const csn& b) {
    return a._bytes.compare(b._bytes) <=> 0;
  }

 private:
  friend class csn_builder;
  std::string _bytes;
};

// Builds a csn part by part; reusable after build() (it starts over).
class csn_builder {
 public:
  csn_builder();
  csn_builder& add(int64_t v);
  csn_builder& add(std::string_view s);
  csn build();

 private:
  std::string _bytes;
};

}  // namespace sluice
