#pragma once

#include <cstdint>
#include <string_view>

namespace sluice {

// CRC32C (Castagnoli, reflected polynomial 0x82F63B78), as Aurora DSQL CDC sends it over a
// chunked image's reassembled text (SPEC §3). Table-driven, eight bytes per step; crc32c of
// "123456789" is 0xE3069283.
//
// extend() continues a running checksum over more bytes, so a text in pieces gives the same
// result as the whole: crc32c_extend(crc32c(a), b) == crc32c(a + b).
uint32_t crc32c_extend(uint32_t crc, std::string_view bytes);
inline uint32_t crc32c(std::string_view bytes) {
  return crc32c_extend(0, bytes);
}

}  // namespace sluice
