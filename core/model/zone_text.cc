#include "core/model/zone_text.h"

namespace sluice {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

zone_text classify_zone_text(std::string_view text) {
  if (text == "UTC" || text == "utc" || text == "Z" || text == "Etc/UTC" || text == "GMT") {
    return {zone_text::kind::utc, 0};
  }
  if (text.empty()) return {};
  if (text[0] != '+' && text[0] != '-') return {zone_text::kind::name, 0};
  const auto seconds = parse_offset_text(text);
  if (!seconds || *seconds > max_zone_offset_seconds || *seconds < -max_zone_offset_seconds) {
    return {};
  }
  return {zone_text::kind::offset, *seconds};
}

std::optional<int32_t> parse_offset_text(std::string_view text) {
  if (text.size() < 3 || (text[0] != '+' && text[0] != '-')) return std::nullopt;
  const bool negative = text[0] == '-';
  if (!is_digit(text[1]) || !is_digit(text[2])) return std::nullopt;
  const int hours = (text[1] - '0') * 10 + (text[2] - '0');
  std::string_view rest = text.substr(3);
  if (!rest.empty() && rest[0] == ':') rest.remove_prefix(1);
  int minutes = 0;
  if (text.size() > 3) {
    if (rest.size() != 2 || !is_digit(rest[0]) || !is_digit(rest[1])) return std::nullopt;
    minutes = (rest[0] - '0') * 10 + (rest[1] - '0');
  }
  if (hours > 23 || minutes > 59) return std::nullopt;
  return (hours * 3600 + minutes * 60) * (negative ? -1 : 1);
}

}  // namespace sluice
