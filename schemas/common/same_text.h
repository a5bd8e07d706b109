#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace sluice {

// a == b, for the short names the readers compare on every member (column names against a
// recycled image's, names against each other for duplicates, envelope members). Up to 16
// bytes it compares two overlapping words per side with no call; longer texts go to memcmp.
// std::string_view's == calls memcmp whatever the length, and those calls were 2-6% of decode
// time.
inline bool same_text(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  const char* p = a.data();
  const char* q = b.data();
  if (n >= 8) {
    if (n > 16) return std::memcmp(p, q, n) == 0;
    uint64_t p0, q0, p1, q1;
    std::memcpy(&p0, p, 8);
    std::memcpy(&q0, q, 8);
    std::memcpy(&p1, p + n - 8, 8);
    std::memcpy(&q1, q + n - 8, 8);
    return ((p0 ^ q0) | (p1 ^ q1)) == 0;
  }
  if (n >= 4) {
    uint32_t p0, q0, p1, q1;
    std::memcpy(&p0, p, 4);
    std::memcpy(&q0, q, 4);
    std::memcpy(&p1, p + n - 4, 4);
    std::memcpy(&q1, q + n - 4, 4);
    return ((p0 ^ q0) | (p1 ^ q1)) == 0;
  }
  if (n == 0) return true;
  // 1 to 3 bytes: the first, middle and last cover them all.
  return p[0] == q[0] && p[n / 2] == q[n / 2] && p[n - 1] == q[n - 1];
}

}  // namespace sluice
