#include "schemas/common/position_parser.h"

#include <charconv>

#include "core/model/value.h"

namespace sluice {
namespace {

std::optional<uint32_t> parse_hex32(std::string_view text) {
  if (text.empty() || text.size() > 8) return std::nullopt;
  uint32_t out = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, 16);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return out;
}

std::optional<int64_t> parse_plain_integer(std::string_view text) {
  // Up to 18 digits cannot overflow: read them straight (what from_chars would return).
  const size_t start = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() > start && text.size() - start <= 18) {
    int64_t v = 0;
    size_t i = start;
    for (; i < text.size(); ++i) {
      const unsigned digit = static_cast<unsigned char>(text[i]) - '0';
      if (digit > 9) break;
      v = v * 10 + digit;
    }
    if (i == text.size()) return start ? -v : v;
  }
  int64_t out = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return out;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

}  // namespace

std::optional<uint64_t> parse_pg_lsn(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto hi = parse_hex32(text.substr(0, slash));
  const auto lo = parse_hex32(text.substr(slash + 1));
  if (!hi || !lo) return std::nullopt;
  return (uint64_t{*hi} << 32) | *lo;
}

std::optional<int64_t> parse_integer(std::string_view text) {
  if (text.empty() || text.front() == '+') return std::nullopt;
  if (auto plain = parse_plain_integer(text)) return plain;
  // Leading zeros, exponents, ".0": normalize first (canonical_number refuses huge
  // expansions, and from_chars then refuses what does not fit).
  const auto canonical = canonical_number(text, 24);
  if (!canonical || canonical->find('.') != std::string::npos) return std::nullopt;
  return parse_plain_integer(*canonical);
}

std::optional<log_file_name> split_log_file(std::string_view name) {
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9')
    --digits;
  if (digits == name.size()) return std::nullopt;
  const auto sequence = parse_plain_integer(name.substr(digits));
  if (!sequence) return std::nullopt;
  std::string_view base = name.substr(0, digits);
  if (!base.empty() && base.back() == '.') base.remove_suffix(1);
  return log_file_name{base, *sequence};
}

std::string normalize_hex_position(std::string_view text) {
  while (!text.empty() && is_space(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && is_space(text.back()))
    text.remove_suffix(1);
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace sluice
