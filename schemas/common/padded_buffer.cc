#include "schemas/common/padded_buffer.h"

#include <algorithm>
#include <cstring>

namespace sluice {

simdjson::padded_string_view padded_buffer::assign(std::string_view bytes) {
  return assign(bytes, {});
}

simdjson::padded_string_view padded_buffer::assign(std::string_view head, std::string_view tail) {
  const size_t size = head.size() + tail.size();
  const size_t needed = size + simdjson::SIMDJSON_PADDING;
  if (needed > _capacity) {
    const size_t grown = std::max(needed, _capacity + _capacity / 2);
    _data = std::make_unique_for_overwrite<char[]>(grown);
    _capacity = grown;
  }
  if (!head.empty()) std::memcpy(_data.get(), head.data(), head.size());
  if (!tail.empty()) std::memcpy(_data.get() + head.size(), tail.data(), tail.size());
  std::memset(_data.get() + size, 0, simdjson::SIMDJSON_PADDING);
  return simdjson::padded_string_view(_data.get(), size, _capacity);
}

}  // namespace sluice
