#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace sluice::testing {

// s as a JSON string literal, escaped as yajl (kcat) escapes: control bytes as \u00XX.
std::string json_string(const std::string& s);

// One message as `kcat -C -J` prints it — the input of `sluice replay --file` — with a
// CreateTime of `timestamp_ms`, or of 2026-01-01 plus `offset` milliseconds when none is
// given. A missing key or payload is null; `headers`, when given, is the JSON array kcat
// prints for them (["name","value",…]).
std::string kcat_line(const std::string& topic, int partition, int64_t offset,
                      const std::optional<std::string>& key,
                      const std::optional<std::string>& payload, const std::string& headers = "",
                      std::optional<int64_t> timestamp_ms = std::nullopt);

}  // namespace sluice::testing
