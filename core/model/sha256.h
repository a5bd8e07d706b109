#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice {

// SHA-256 (FIPS 180-4) of some bytes, to name bytes a store had to cut (a dead letter larger
// than MariaDB's max_allowed_packet keeps its length and digest). Not for secrets: plain,
// not constant-time. sha256_hex("abc") is
// "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".
std::array<uint8_t, 32> sha256(std::string_view bytes);
// The digest as 64 lower-case hex digits.
std::string sha256_hex(std::string_view bytes);

}  // namespace sluice
