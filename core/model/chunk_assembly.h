#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "core/model/chunk_piece.h"
#include "core/model/result.h"

namespace sluice {

// Puts one chunked record's image back together (Aurora DSQL, SPEC §3): the pure part of a
// chunk's completion, apart from the targets (each one's state/chunk_store.cc reads the pieces
// back; sinks/plan/chunk_pieces.cc calls this), so that it is unit-tested and fuzzed on its own
// (fuzz/targets/chunk_assembly_target.cc).
//
// `total_fragments` and `crc32c_text` are what the principal record says; `crc32c_text` is
// the checksum in decimal, as the chunk store keeps it (a text column: PostgreSQL has no
// unsigned 32-bit integer), and anything but the decimal of the image's checksum is a
// mismatch. `fragments` come in any order. The image is their payloads concatenated by
// index, returned only when the chunk is whole and intact; otherwise the first problem, in
// this order:
//   total_fragments < 1                         wrong_type
//   a fragment's index outside 0..total-1       wrong_type ("beyond total_fragments N", "negative")
//   two fragments with the same index           wrong_type
//   a fragment missing                          missing_field (names the first 20)
//   the image longer than max_bytes             too_large (nothing is concatenated)
//   CRC32C of the image differs                 crc_mismatch (says both checksums)
//
// A pure function: no state, safe from any thread.
result<std::string> assemble_chunk(int32_t total_fragments, std::string_view crc32c_text,
                                   std::span<const chunk_piece* const> fragments,
                                   size_t max_bytes = std::numeric_limits<size_t>::max());

}  // namespace sluice
