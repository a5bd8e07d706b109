#include "core/model/crc32c.h"

#include <doctest/doctest.h>

#include <string>

namespace sluice {

TEST_CASE("CRC32C: the Castagnoli check values") {
  CHECK(crc32c("") == 0u);
  CHECK(crc32c("123456789") == 0xE3069283u);
  CHECK(crc32c("a") == 0xC1D04330u);
  // RFC 3720 (iSCSI) B.4 test patterns: 32 bytes of zeros, of ones, ascending, descending.
  CHECK(crc32c(std::string(32, '\0')) == 0x8A9136AAu);
  CHECK(crc32c(std::string(32, '\xff')) == 0x62A8AB43u);
  std::string up, down;
  for (int i = 0; i < 32; ++i) {
    up.push_back(static_cast<char>(i));
    down.push_back(static_cast<char>(31 - i));
  }
  CHECK(crc32c(up) == 0x46DD794Eu);
  CHECK(crc32c(down) == 0x113FDB5Cu);
}

TEST_CASE("CRC32C: a text checked in pieces gives the checksum of the whole") {
  std::string text;
  for (int i = 0; i < 1000; ++i)
    text += "fragment " + std::to_string(i * 7919) + ", ";
  const uint32_t whole = crc32c(text);
  for (size_t cut : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{4097},
                     text.size() - 1, text.size()}) {
    CHECK(crc32c_extend(crc32c(text.substr(0, cut)), text.substr(cut)) == whole);
  }
  // Every byte counts: one bit flipped anywhere changes it.
  for (size_t at : {size_t{0}, size_t{5}, size_t{8}, text.size() / 2, text.size() - 1}) {
    std::string flipped = text;
    flipped[at] ^= 1;
    CHECK(crc32c(flipped) != whole);
  }
}

}  // namespace sluice
