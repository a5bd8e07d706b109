#include "schemas/common/padded_buffer.h"

#include <algorithm>
#include <cstring>

namespace sluice {

simdjson::padded_string_view padded_buffer::assign(std::string_view bytes) {
  const size_t needed = bytes.size() + simdjson::SIMDJSON_PADDING;
  if (needed > _capacity) {
    const size_t grown = std::max(needed, _capacity + _capacity / 2);
    _data = std::make_unique_for_overwrite<char[]>(grown);
    _capacity = grown;
  }
  if (!bytes.empty()) std::memcpy(_data.get(), bytes.data(), bytes.size());
  std::memset(_data.get() + bytes.size(), 0, simdjson::SIMDJSON_PADDING);
  return simdjson::padded_string_view(_data.get(), bytes.size(), _capacity);
}

}  // namespace sluice
