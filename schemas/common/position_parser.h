#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice {

// Parsers for the source positions CSNs are built from (SPEC §2: positions are compared as
// what they are, not as the text that carries them). Pure functions.

// A PostgreSQL LSN "16/B374D848": (hi << 32) | lo, each half 1 to 8 hex digits.
std::optional<uint64_t> parse_pg_lsn(std::string_view text);

// An integer sent as a JSON number or as a numeric string: "42", "0042", "-7", "4.2e1",
// "42.0". Nothing when the text is not a number, not an integer, or does not fit int64.
std::optional<int64_t> parse_integer(std::string_view text);

// A binlog-style file name split into its base name and numeric sequence:
// "mysql-bin.000010" -> {"mysql-bin", 10}. The sequence is the digits after the last '.'
// (or the trailing digits when there is no '.'); nothing when there are none.
struct log_file_name {
  std::string_view base;
  int64_t sequence = 0;
};
std::optional<log_file_name> split_log_file(std::string_view name);

// A fixed-width hex position (a SQL Server LSN "00000027:00000AC0:0002", an Oracle rs_id
// " 0x0073c9.000a4e4c.01d0 ") in one spelling that orders correctly as bytes: surrounding
// whitespace removed, hex letters lower-cased.
std::string normalize_hex_position(std::string_view text);

}  // namespace sluice
