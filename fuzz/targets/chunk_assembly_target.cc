// Fuzz target body for chunk reassembly (core/model/chunk_assembly.h): what the principal
// record says and a set of fragments, put together and checked against a second, plainer
// reading of the same rules. One input (parts separated as in fuzz_message_list.h):
//
//   <total_fragments> <crc32c>[ <max_bytes>]     the principal; crc32c "*": the right one
//   %%
//   <index> <payload>                            a fragment (payload: any bytes, maybe none)
//   %%
//   ...
//
// A part that does not start with a number is not a fragment and is skipped.
#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/chunk_assembly.h"
#include "core/model/crc32c.h"
#include "fuzz/fuzz_invariants.h"
#include "fuzz/fuzz_message_list.h"
#include "fuzz/fuzz_targets.h"

namespace sluice::fuzz {
namespace {

// Reads a decimal integer at the start of `text`, then skips one space after it.
template <typename T>
bool read_number(std::string_view& text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc()) return false;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  return true;
}

std::string_view next_word(std::string_view& text) {
  const size_t end = std::min(text.find(' '), text.size());
  const std::string_view word = text.substr(0, end);
  text.remove_prefix(std::min(end + 1, text.size()));
  return word;
}

// The rules of assemble_chunk, read plainly: the error code it must give (nullopt: none) and
// the image it must return.
struct expected {
  std::optional<error_code> code;
  std::string image;
};

expected oracle(int32_t total, std::string_view crc_text, const std::vector<chunk_piece>& pieces,
                size_t max_bytes) {
  if (total < 1) return {error_code::wrong_type, {}};
  for (const chunk_piece& p : pieces) {
    if (p.index < 0 || p.index >= total) return {error_code::wrong_type, {}};
  }
  std::map<int32_t, std::string_view> by_index;
  for (const chunk_piece& p : pieces) {
    if (!by_index.emplace(p.index, p.payload).second) return {error_code::wrong_type, {}};
  }
  if (by_index.size() != static_cast<size_t>(total)) return {error_code::missing_field, {}};
  std::string image;
  for (const auto& [index, payload] : by_index)
    image += payload;
  if (image.size() > max_bytes) return {error_code::too_large, {}};
  if (std::to_string(crc32c(image)) != crc_text) return {error_code::crc_mismatch, {}};
  return {std::nullopt, image};
}

std::string outcome(const result<std::string>& r) {
  if (r.ok()) return "image of " + std::to_string(r.value().size()) + " bytes";
  return std::string(to_string(r.err().code)) + ": " + r.err().message;
}

}  // namespace

void fuzz_chunk_assembly(std::string_view input) {
  const std::vector<std::string_view> parts = split_messages(input);
  std::string_view header = parts.empty() ? std::string_view() : parts[0];
  int32_t total = 0;
  if (!read_number(header, total)) return;
  const std::string_view crc_word = next_word(header);
  size_t max_bytes = std::numeric_limits<size_t>::max();
  if (!header.empty() && !read_number(header, max_bytes)) return;

  std::vector<chunk_piece> pieces;
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string_view part = parts[i];
    chunk_piece p;
    if (!read_number(part, p.index)) continue;
    p.chunk_id = "fuzz";
    p.payload = std::string(part);
    pieces.push_back(std::move(p));
  }
  std::string crc_text(crc_word);
  if (crc_word == "*") {
    // The checksum of the payloads in index order (the first of a doubled index first), so
    // that the fuzzer reaches a whole chunk without guessing a CRC.
    std::vector<const chunk_piece*> sorted;
    for (const chunk_piece& p : pieces)
      sorted.push_back(&p);
    std::stable_sort(sorted.begin(), sorted.end(), [](const chunk_piece* a, const chunk_piece* b) {
      return a->index < b->index;
    });
    uint32_t crc = 0;
    for (const chunk_piece* p : sorted)
      crc = crc32c_extend(crc, p->payload);
    crc_text = std::to_string(crc);
  }

  std::vector<const chunk_piece*> given;
  for (const chunk_piece& p : pieces)
    given.push_back(&p);
  const result<std::string> r = assemble_chunk(total, crc_text, given, max_bytes);
  const expected want = oracle(total, crc_text, pieces, max_bytes);
  if (want.code) {
    require(!r.ok(), "assembled a chunk that should give " + std::string(to_string(*want.code)));
    require(r.err().code == *want.code,
            "gave " + outcome(r) + ", expected " + std::string(to_string(*want.code)));
    require(!r.err().message.empty(), "an error without a message");
  } else {
    require(r.ok(), "refused a whole, intact chunk: " + outcome(r));
    require(r.value() == want.image, "the image is not the fragments in index order");
    require(std::to_string(crc32c(r.value())) == crc_text, "the image's CRC32C differs");
  }

  // The order the pieces come in changes nothing (but which stray index a message names).
  std::reverse(given.begin(), given.end());
  const result<std::string> reversed = assemble_chunk(total, crc_text, given, max_bytes);
  const bool same = reversed.ok() == r.ok() &&
                    (r.ok() ? reversed.value() == r.value() : reversed.err().code == r.err().code);
  require(same,
          "pieces in reverse order give " + outcome(reversed) + ", in input order " + outcome(r));
}

}  // namespace sluice::fuzz
