#pragma once

// How the declarative config table (config_table.cc) binds a key to a field of `config`:
// field<&config::a, &a_type::b>() for a plain field, entry_field<&config::map, ...>() for a
// field of a named entry (tables.<name>.…). The table says what a key is; this says how its
// typed value reaches the struct and back.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "connector/config/config.h"
#include "connector/config/config_table.h"

namespace sluice::config_binding {

using std::chrono::milliseconds;
using string_map = std::map<std::string, std::string>;

template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};

inline std::size_t index_of(std::span<const std::string_view> allowed, std::string_view v) {
  return static_cast<std::size_t>(std::find(allowed.begin(), allowed.end(), v) - allowed.begin());
}

// Stores a typed value in a field of any type the config uses. The loader has typed and
// bounds-checked the value against `key`, so the conversions here cannot fail.
template <typename T>
void assign(T& field, const config_key& key, const typed_value& v) {
  if constexpr (std::is_same_v<T, bool>) {
    field = std::get<bool>(v);
  } else if constexpr (std::is_same_v<T, milliseconds>) {
    const auto* ms = std::get_if<milliseconds>(&v);
    field = ms ? *ms : milliseconds(std::get<std::int64_t>(v));
  } else if constexpr (std::is_integral_v<T>) {
    field = static_cast<T>(std::get<std::int64_t>(v));
  } else if constexpr (std::is_enum_v<T>) {
    field = static_cast<T>(index_of(key.allowed, std::get<std::string>(v)));
  } else if constexpr (is_optional<T>::value) {
    const auto& s = std::get<std::string>(v);
    if (s.empty()) {
      field.reset();
    } else {
      field = static_cast<typename T::value_type>(index_of(key.allowed, s));
    }
  } else if constexpr (std::is_same_v<T, string_map>) {
    field.clear();
    for (const auto& [k, val] : std::get<string_pairs>(v))
      field[k] = val;
  } else {
    field = std::get<T>(v);
  }
}

// The inverse of assign(): a field's value as the typed value of its key.
template <typename T>
typed_value read(const T& field, const config_key& key) {
  if constexpr (std::is_same_v<T, bool>) {
    return field;
  } else if constexpr (std::is_same_v<T, milliseconds>) {
    if (key.type == value_type::integer) return static_cast<std::int64_t>(field.count());
    return field;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<std::int64_t>(field);
  } else if constexpr (std::is_enum_v<T>) {
    return std::string(key.allowed[static_cast<std::size_t>(field)]);
  } else if constexpr (is_optional<T>::value) {
    if (!field) return std::string();
    return std::string(key.allowed[static_cast<std::size_t>(*field)]);
  } else if constexpr (std::is_same_v<T, string_map>) {
    return string_pairs(field.begin(), field.end());
  } else {
    return field;
  }
}

// Binds a key to config.*Members (a chain of pointers to members).
template <auto... Members>
key_binding field() {
  return {
      [](config& c, const config_key& k, std::string_view, const typed_value& v) {
        assign((c.*....*Members), k, v);
      },
      [](const config& c, const config_key& k, std::string_view) -> typed_value {
        return read((c.*....*Members), k);
      },
      nullptr,
  };
}

// Binds a key under a <name> segment to (config.*Map)[name].*Members.
template <auto Map, auto... Members>
key_binding entry_field() {
  return {
      [](config& c, const config_key& k, std::string_view name, const typed_value& v) {
        auto& entry = (c.*Map)[std::string(name)];
        assign((entry.*....*Members), k, v);
      },
      [](const config& c, const config_key& k, std::string_view name) -> typed_value {
        const auto& entries = c.*Map;
        const auto it = entries.find(std::string(name));
        using entry_type = typename std::remove_cvref_t<decltype(entries)>::mapped_type;
        static const entry_type empty{};
        const auto& entry = it == entries.end() ? empty : it->second;
        return read((entry.*....*Members), k);
      },
      [](const config& c) {
        std::vector<std::string> names;
        for (const auto& [name, entry] : c.*Map)
          names.push_back(name);
        return names;
      },
  };
}

}  // namespace sluice::config_binding
