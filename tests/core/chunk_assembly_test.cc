#include "core/model/chunk_assembly.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/model/crc32c.h"

namespace sluice {
namespace {

chunk_piece fragment(int32_t index, std::string payload) {
  chunk_piece p;
  p.chunk_id = "c";
  p.index = index;
  p.payload = std::move(payload);
  return p;
}

std::vector<const chunk_piece*> pointers(const std::vector<chunk_piece>& pieces) {
  std::vector<const chunk_piece*> out;
  for (const chunk_piece& p : pieces)
    out.push_back(&p);
  return out;
}

std::string crc_of(std::string_view text) {
  return std::to_string(crc32c(text));
}

}  // namespace

TEST_CASE("chunk assembly: fragments in any order give the image in index order") {
  const std::string image = R"({"id":7,"note":"a long text"})";
  const std::vector<chunk_piece> pieces{fragment(2, R"( long text"})"), fragment(0, R"({"id":7,)"),
                                        fragment(1, R"("note":"a)")};
  const result<std::string> r = assemble_chunk(3, crc_of(image), pointers(pieces));
  REQUIRE_MESSAGE(r.ok(), r.err().message);
  CHECK(r.value() == image);
}

TEST_CASE("chunk assembly: a CRC32C mismatch names both checksums") {
  const std::vector<chunk_piece> pieces{fragment(0, "ab"), fragment(1, "c")};
  const result<std::string> r = assemble_chunk(2, "12345", pointers(pieces));
  REQUIRE_FALSE(r.ok());
  CHECK(r.err().code == error_code::crc_mismatch);
  CHECK(r.err().message ==
        "CRC32C mismatch: the principal record says 12345, the 2 fragment(s) "
        "(3 bytes) give " +
            crc_of("abc"));
  // The checksum is compared as the store keeps it: in decimal, without leading zeros.
  CHECK_FALSE(assemble_chunk(2, "0" + crc_of("abc"), pointers(pieces)).ok());
}

TEST_CASE("chunk assembly: a fragment beyond total_fragments, a negative or a doubled one") {
  std::vector<chunk_piece> pieces{fragment(0, "a"), fragment(2, "b")};
  result<std::string> r = assemble_chunk(2, crc_of("ab"), pointers(pieces));
  REQUIRE_FALSE(r.ok());
  CHECK(r.err().code == error_code::wrong_type);
  CHECK(r.err().message == "a fragment's index is beyond total_fragments 2 (2)");

  pieces = {fragment(0, "a"), fragment(-1, "b")};
  r = assemble_chunk(2, crc_of("ab"), pointers(pieces));
  REQUIRE_FALSE(r.ok());
  CHECK(r.err().message == "a fragment's index is negative (-1)");

  pieces = {fragment(1, "a"), fragment(1, "a")};
  r = assemble_chunk(2, crc_of("aa"), pointers(pieces));
  REQUIRE_FALSE(r.ok());
  CHECK(r.err().message == "fragment 1 is there twice");
}

TEST_CASE("chunk assembly: missing fragments are named, the first twenty of them") {
  std::vector<chunk_piece> pieces{fragment(0, "a"), fragment(3, "b")};
  result<std::string> r = assemble_chunk(6, "0", pointers(pieces));
  REQUIRE_FALSE(r.ok());
  CHECK(r.err().code == error_code::missing_field);
  CHECK(r.err().message == "missing fragment(s) 1, 2, 4, 5 of 6");

  // A huge total with one fragment: listed up to twenty, without walking two billion indices.
  pieces = {fragment(5, "x")};
  r = assemble_chunk(2'147'483'647, "0", pointers(pieces));
  REQUIRE_FALSE(r.ok());
  CHECK(r.err().message ==
        "missing fragment(s) 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, "
        "20, … of 2147483647");

  r = assemble_chunk(1, crc_of(""), {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.err().message == "missing fragment(s) 0 of 1");
}

TEST_CASE("chunk assembly: total_fragments must be positive, the image within max_bytes") {
  const std::vector<chunk_piece> pieces{fragment(0, "abc"), fragment(1, "de")};
  result<std::string> r = assemble_chunk(0, crc_of(""), {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.err().message == "total_fragments 0 is not a positive count");

  r = assemble_chunk(2, crc_of("abcde"), pointers(pieces), 4);
  REQUIRE_FALSE(r.ok());
  CHECK(r.err().code == error_code::too_large);
  CHECK(r.err().message == "the reassembled image is over 4 bytes");

  r = assemble_chunk(2, crc_of("abcde"), pointers(pieces), 5);
  REQUIRE(r.ok());
  CHECK(r.value() == "abcde");
}

}  // namespace sluice
