#include "schemas/debezium/connect_schema_cache.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace sluice {

const std::vector<connect_field_schema>* connect_schema_cache::find(std::string_view bytes) {
  for (size_t i = 0; i < _entries.size(); ++i) {
    const entry& e = *_entries[i];
    if (e.bytes.size() != bytes.size() ||
        std::memcmp(e.bytes.data(), bytes.data(), bytes.size()) != 0) {
      continue;
    }
    if (i > 0) std::rotate(_entries.begin(), _entries.begin() + i, _entries.begin() + i + 1);
    return &_entries.front()->columns;
  }
  return nullptr;
}

const std::vector<connect_field_schema>* connect_schema_cache::find_prefix(std::string_view text,
                                                                           size_t& length) {
  for (size_t i = 0; i < _entries.size(); ++i) {
    if (!text.starts_with(_entries[i]->bytes)) continue;
    if (i > 0) std::rotate(_entries.begin(), _entries.begin() + i, _entries.begin() + i + 1);
    length = _entries.front()->bytes.size();
    return &_entries.front()->columns;
  }
  return nullptr;
}

const std::vector<connect_field_schema>& connect_schema_cache::insert(
    std::string_view bytes, std::span<const connect_field_schema> columns) {
  auto e = std::make_unique<entry>();
  e->bytes.assign(bytes);
  const auto views = [](connect_field_schema& c) {
    return std::array<std::string_view*, 6>{&c.field,      &c.type,       &c.name,
                                            &c.items_type, &c.items_name, &c.source_type};
  };
  // One string for all the text, sized first: the views into it never move.
  size_t total = 0;
  e->columns.assign(columns.begin(), columns.end());
  for (connect_field_schema& c : e->columns)
    for (std::string_view* v : views(c))
      total += v->size();
  e->text.reserve(total);
  for (connect_field_schema& c : e->columns) {
    for (std::string_view* v : views(c)) {
      const size_t at = e->text.size();
      e->text.append(*v);
      *v = std::string_view(e->text.data() + at, v->size());
    }
  }
  if (_entries.size() == _capacity) _entries.pop_back();
  _entries.insert(_entries.begin(), std::move(e));
  return _entries.front()->columns;
}

}  // namespace sluice
