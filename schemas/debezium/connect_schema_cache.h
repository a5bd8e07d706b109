#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "schemas/debezium/connect_field_schema.h"

namespace sluice {

// The columns of the Connect schema blocks a reader has parsed, by the block's exact bytes.
// JsonConverter with schemas sends the same ~3 KB block with every message of a table: a block
// seen before (same bytes, compared in full) gives its columns without being parsed again
// (issue 16: parsing it was half the decode time). Entries own their text, so their columns
// stay valid whatever the parser does next.
//
//   find(bytes):   an entry with these bytes → its columns (the entry becomes the newest)
//   insert(bytes, columns): copies both; past `capacity` entries the least recently used goes
//
// Lifecycle: one per reader. Threading: as its reader.
class connect_schema_cache {
 public:
  explicit connect_schema_cache(size_t capacity) : _capacity(capacity) {}

  const std::vector<connect_field_schema>* find(std::string_view bytes);
  // The entry whose bytes `text` starts with (its length in `length`), or nullptr.
  const std::vector<connect_field_schema>* find_prefix(std::string_view text, size_t& length);
  const std::vector<connect_field_schema>& insert(std::string_view bytes,
                                                  std::span<const connect_field_schema> columns);
  size_t size() const { return _entries.size(); }

 private:
  struct entry {
    std::string bytes;
    std::string text;  // every string of `columns`, which view into it
    std::vector<connect_field_schema> columns;
  };
  size_t _capacity;
  std::vector<std::unique_ptr<entry>> _entries;  // the most recently used first
};

}  // namespace sluice
