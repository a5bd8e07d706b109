#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/json_text.h"
#include "core/model/row_key.h"
#include "core/model/value.h"

namespace sluice {

// JSON renderings of what sluice stores for humans: tombstone keys (key_json), dead-letter
// headers and the images of changes the database refused.

// {"col": value, ...} for the given names and values (equal lengths).
std::string key_json(const std::vector<std::string>& names, const std::vector<value>& values);
// [{"key": "k", "value": "v"}, ...], keeping order and repeats; a name or value that is not
// UTF-8 text is given in hex as "key_hex" / "value_hex"; a null value as null.
std::string headers_json(
    const std::vector<std::pair<std::string, std::optional<std::string>>>& headers);
// True when s is well-formed UTF-8 without NUL bytes (PostgreSQL text can hold it).
bool is_storable_text(std::string_view s);

}  // namespace sluice
