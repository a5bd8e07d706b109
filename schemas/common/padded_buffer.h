#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include <simdjson.h>

namespace sluice {

// A copy of one message followed by SIMDJSON_PADDING readable bytes, as simdjson requires.
// The storage is kept and only grows, so a steady stream of messages does not reallocate.
//
// Lifecycle: one per decoder instance; each assign() invalidates the view it returned before.
// Threading: not thread-safe (one per decode thread, like the parser it feeds).
class padded_buffer {
 public:
  simdjson::padded_string_view assign(std::string_view bytes);
  // head then tail, as one document (a message with a stretch left out).
  simdjson::padded_string_view assign(std::string_view head, std::string_view tail);
  size_t capacity() const { return _capacity; }

 private:
  std::unique_ptr<char[]> _data;
  size_t _capacity = 0;  // bytes allocated, padding included
};

}  // namespace sluice
