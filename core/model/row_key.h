#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/result.h"
#include "core/model/value.h"

namespace sluice {

// What is known of a key column's type, enough to canonicalize its values.
enum class column_class : uint8_t { unknown, numeric, text, boolean, other };

// A primary-key value (SPEC §2): column names, their values, and one canonical byte string
// that is equal for equal keys whatever way the source spelled them — the Oracle key
// "1231535353" (a string) and 1231535353 (a number) on a numeric column, 1.0 and 1.
// The canonical bytes are what the merge partitions on and what tombstones store.
struct row_key {
  std::vector<std::string> columns;
  std::vector<value> values;  // canonical values, in column order
  std::string canonical;

  bool empty() const { return columns.empty(); }
  friend bool operator==(const row_key& a, const row_key& b) { return a.canonical == b.canonical; }
};

// Builds a key from raw values. classes may be empty (all unknown) or one per column.
// Numbers are canonicalized always; strings become numbers when the column is numeric.
// Null or absent key values, or a string that is not a number on a numeric column, are
// errors.
result<row_key> make_row_key(std::vector<std::string> columns, std::vector<value> values,
                             const std::vector<column_class>& classes = {});

// The same, in place: key.columns and key.values are filled by the caller; the values are
// canonicalized and key.canonical rebuilt (its capacity kept). On error the key is unusable.
std::optional<error> canonicalize_key(row_key& key, const std::vector<column_class>& classes = {});

}  // namespace sluice
