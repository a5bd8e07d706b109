#pragma once

#include <string>
#include <string_view>

#include "core/model/value.h"

namespace sluice {

// JSON text for what sluice writes for humans and tools (decode output, logs, status, the
// readable columns of its state tables): the one place that escapes a JSON string.

// Appends s as a JSON string literal (quotes, escapes, control characters as \u00XX).
void append_json_string(std::string& out, std::string_view s);
// Appends a value as a JSON token: numbers and JSON as their exact text, strings quoted,
// null and absent as null.
void append_json_value(std::string& out, const value& v);

}  // namespace sluice
