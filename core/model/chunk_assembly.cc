#include "core/model/chunk_assembly.h"

#include <algorithm>
#include <vector>

#include "core/model/crc32c.h"

namespace sluice {
namespace {

// "fragment(s) 1, 3-5 of 6" style list of what `sorted` (indices 0..total-1, ascending,
// distinct) lacks. Walks the gaps, so a huge total with few fragments costs little.
std::string missing_fragments(int32_t total, const std::vector<const chunk_piece*>& sorted) {
  constexpr size_t listed_max = 20;
  std::string list;
  size_t listed = 0;
  int32_t next = 0;  // the first index not yet looked at
  const auto list_up_to = [&](int32_t end) {
    for (; next < end && listed < listed_max; ++next, ++listed)
      list += (list.empty() ? "" : ", ") + std::to_string(next);
    next = end;
  };
  for (const chunk_piece* p : sorted) {
    list_up_to(p->index);
    next = p->index + 1;
  }
  list_up_to(total);
  const int64_t missing = int64_t{total} - static_cast<int64_t>(sorted.size());
  if (static_cast<size_t>(missing) > listed) list += ", …";
  return "missing fragment(s) " + list + " of " + std::to_string(total);
}

}  // namespace

result<std::string> assemble_chunk(int32_t total_fragments, std::string_view crc32c_text,
                                   std::span<const chunk_piece* const> fragments,
                                   size_t max_bytes) {
  const int32_t total = total_fragments;
  if (total < 1) {
    return make_error(error_code::wrong_type,
                      "total_fragments " + std::to_string(total) + " is not a positive count");
  }
  for (const chunk_piece* p : fragments) {
    if (p->index < 0 || p->index >= total) {
      return make_error(
          error_code::wrong_type,
          std::string("a fragment's index is ") +
              (p->index < 0 ? "negative" : "beyond total_fragments " + std::to_string(total)) +
              " (" + std::to_string(p->index) + ")");
    }
  }
  std::vector<const chunk_piece*> sorted(fragments.begin(), fragments.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const chunk_piece* a, const chunk_piece* b) { return a->index < b->index; });
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i]->index == sorted[i - 1]->index) {
      return make_error(error_code::wrong_type,
                        "fragment " + std::to_string(sorted[i]->index) + " is there twice");
    }
  }
  // In range and distinct: all there exactly when there are `total` of them.
  if (sorted.size() != static_cast<size_t>(total)) {
    return make_error(error_code::missing_field, missing_fragments(total, sorted));
  }
  size_t bytes = 0;
  for (const chunk_piece* p : sorted) {
    if (p->payload.size() > max_bytes - bytes) {
      return make_error(error_code::too_large,
                        "the reassembled image is over " + std::to_string(max_bytes) + " bytes");
    }
    bytes += p->payload.size();
  }
  std::string image;
  image.reserve(bytes);
  for (const chunk_piece* p : sorted)
    image += p->payload;
  const uint32_t computed = crc32c(image);
  if (std::to_string(computed) != crc32c_text) {
    return make_error(error_code::crc_mismatch, "CRC32C mismatch: the principal record says " +
                                                    std::string(crc32c_text) + ", the " +
                                                    std::to_string(total) + " fragment(s) (" +
                                                    std::to_string(image.size()) + " bytes) give " +
                                                    std::to_string(computed));
  }
  return image;
}

}  // namespace sluice
