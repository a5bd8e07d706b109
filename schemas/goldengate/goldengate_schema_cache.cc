#include "schemas/goldengate/goldengate_schema_cache.h"

#include "schemas/goldengate/goldengate_json_schema.h"
#include "schemas/goldengate/goldengate_metadata.h"

namespace sluice {

std::optional<table_name> goldengate_schema_cache::store(std::string_view id,
                                                         std::string_view text) {
  auto it = _schemas.find(id);
  if (it != _schemas.end()) {
    // Sent again, possibly changed.
    if (it->second.text == text) return std::nullopt;
    if (_bytes - it->second.text.size() + text.size() > max_bytes) return std::nullopt;
    _bytes = _bytes - it->second.text.size() + text.size();
    it->second.text.assign(text);
  } else if (_bytes + id.size() + text.size() <= max_bytes) {
    _bytes += id.size() + text.size();
    it = _schemas.emplace(std::string(id), cached_schema{std::string(text), {}}).first;
  } else {
    return std::nullopt;
  }
  // Read from the cached copy: the caller's text may die with its next parse.
  it->second.columns = json_schema_columns(it->second.text, _names, _max_columns);
  auto name = parse_qual_table(it->first);
  if (!name) return std::nullopt;  // not a table's schema
  _ids[*name] = it->first;
  return std::move(*name);
}

const std::string* goldengate_schema_cache::text(std::string_view id) const {
  auto it = _schemas.find(id);
  return it == _schemas.end() ? nullptr : &it->second.text;
}

const std::vector<column_types::column>* goldengate_schema_cache::columns(
    const table_name& table) const {
  auto id = _ids.find(table);
  if (id == _ids.end()) return nullptr;
  auto it = _schemas.find(id->second);
  return it == _schemas.end() ? nullptr : &it->second.columns;
}

}  // namespace sluice
