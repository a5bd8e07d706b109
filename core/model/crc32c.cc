#include "core/model/crc32c.h"

#include <array>

namespace sluice {
namespace {

constexpr uint32_t polynomial = 0x82F63B78;  // Castagnoli, bit-reflected

// tables[0] is the classic byte table; tables[k][b] is the CRC of byte b followed by k zero
// bytes, so eight bytes fold in with eight lookups ("slicing-by-8").
using crc_tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr crc_tables make_tables() {
  crc_tables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int i = 0; i < 8; ++i)
      crc = (crc >> 1) ^ ((crc & 1) ? polynomial : 0);
    t[0][b] = crc;
  }
  for (uint32_t b = 0; b < 256; ++b) {
    for (size_t k = 1; k < 8; ++k)
      t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
  }
  return t;
}

constexpr crc_tables tables = make_tables();

}  // namespace

uint32_t crc32c_extend(uint32_t crc, std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t n = bytes.size();
  crc = ~crc;
  while (n >= 8) {
    // Little-endian assembly by hand: no alignment or host byte order assumed.
    const uint32_t lo =
        crc ^ (uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24);
    crc = tables[7][lo & 0xFF] ^ tables[6][(lo >> 8) & 0xFF] ^ tables[5][(lo >> 16) & 0xFF] ^
          tables[4][lo >> 24] ^ tables[3][p[4]] ^ tables[2][p[5]] ^ tables[1][p[6]] ^
          tables[0][p[7]];
    p += 8;
    n -= 8;
  }
  while (n--)
    crc = (crc >> 8) ^ tables[0][(crc ^ *p++) & 0xFF];
  return ~crc;
}

}  // namespace sluice
