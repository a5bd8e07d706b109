#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/catalog/table_catalog.h"
#include "core/model/column_type.h"
#include "schemas/goldengate/goldengate_names.h"

namespace sluice {

// The JSON Schema records (seed 003) a GoldenGate topic sent, by id: each one's text and the
// columns it declares (goldengate_json_schema.h), and which table each id names
// ("SCHEMA.TABLE": an id that is not a table name is cached, and names none).
//
//   store(id, text):
//     the same text again           -> nothing
//     new text, within the budget   -> cached (replacing the id's old text), its columns
//                                      read; the table it names, if any, returned
//     past max_bytes                -> not cached: a new id is dropped, a re-sent one keeps
//                                      its old text, so hostile input cannot grow the cache
//
// Stage: decode. Lifecycle: one per goldengate_decoder, for its life. Threading: its
// decoder's.
class goldengate_schema_cache {
 public:
  // At most this many bytes of ids and schema text are cached.
  static constexpr size_t max_bytes = size_t{16} << 20;

  // `names` must outlive the cache (the decoder's); at most max_columns columns per schema.
  goldengate_schema_cache(const goldengate_names& names, size_t max_columns)
      : _names(names), _max_columns(max_columns) {}

  // Caches `text` as the schema record `id` (non-empty). Returns the table the id names when
  // its cached columns were read anew; nothing when the text was unchanged, did not fit or
  // the id names no table.
  std::optional<table_name> store(std::string_view id, std::string_view text);

  // The JSON text last cached for this id, or nullptr.
  const std::string* text(std::string_view id) const;
  // The columns the schema record naming `table` declares, or nullptr.
  const std::vector<column_types::column>* columns(const table_name& table) const;
  size_t size() const { return _schemas.size(); }

 private:
  struct cached_schema {
    std::string text;
    std::vector<column_types::column> columns;  // what the text declares
  };

  const goldengate_names& _names;
  size_t _max_columns;
  std::map<std::string, cached_schema, std::less<>> _schemas;  // by id
  size_t _bytes = 0;                                           // ids and texts in _schemas
  std::map<table_name, std::string> _ids;                      // the id naming each table
};

}  // namespace sluice
