#pragma once

#include <string>
#include <string_view>

namespace sluice {

// SHA-256 of some bytes as 64 lower-case hex digits (OpenSSL's libcrypto), to name bytes a
// store had to cut (a dead letter larger than MariaDB's max_allowed_packet keeps its length and
// digest) or a lock whose name is too long. sha256_hex("abc") is
// "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".
std::string sha256_hex(std::string_view bytes);

}  // namespace sluice
