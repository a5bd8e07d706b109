#pragma once

// Test helper: a column_type from its text form, for tests that state types as text.

#include <string_view>

#include <doctest/doctest.h>

#include "core/model/column_type.h"

namespace sluice {

// The column type `text` spells ("int32", "decimal(12,2)", "string(80)[]"); fails the test
// (REQUIRE) when it does not parse.
inline column_type parsed_type(std::string_view text) {
  auto parsed = column_type::parse(text);
  REQUIRE_MESSAGE(parsed, text);
  return *parsed;
}

}  // namespace sluice
