#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "connector/config/config_table.h"

namespace sluice {

// Scalar text <-> typed values, shared by values from the file (after ${ENV} substitution)
// and the key table's defaults, so that a default is typed exactly like a value. Pure
// functions, no YAML.

std::optional<std::int64_t> parse_config_integer(std::string_view text);  // decimal, optional '-'
// One or more <number><unit>, unit ms, s, m, h or d: "500ms", "24h", "1h30m".
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);
// Bytes, optionally with a unit B, KiB, MiB, GiB or TiB: "1048576", "64MiB", "1 GiB".
std::optional<std::int64_t> parse_size(std::string_view text);
std::optional<bool> parse_bool(std::string_view text);  // true or false
// "a, b,c" -> {a, b, c}; "" -> {}.
std::vector<std::string> split_list(std::string_view text);

// The largest whole unit: 86400000ms -> "24h", 1500ms -> "1500ms" (days from 7d up).
std::string format_duration(std::chrono::milliseconds d);
// The largest whole binary unit: 67108864 -> "64MiB", 1000 -> "1000".
std::string format_size(std::int64_t bytes);

// Types scalar text for `key` and checks its bounds; on failure, the reason (expectation()).
// A list key splits the text on commas; a map key accepts only "" (the empty map).
std::variant<typed_value, std::string> type_scalar(const config_key& key, std::string_view text);

// What a value of `key` must be: "an integer between 1 and 64", "one of hard, soft".
std::string expectation(const config_key& key);

// A typed value as YAML text that reads back as the same value: "[a, b]", "64MiB", "\"\"".
std::string format_value(const config_key& key, const typed_value& v);

// `s` as a YAML scalar, double-quoted when plain text would read differently. In flow
// context (inside [..] or {..}) the flow indicators , [ ] { } also force quotes.
std::string yaml_scalar(std::string_view s, bool in_flow = false);
// `s` in double quotes, with YAML escapes.
std::string double_quoted(std::string_view s);

}  // namespace sluice
