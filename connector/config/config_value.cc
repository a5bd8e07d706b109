#include "connector/config/config_value.h"

#include <charconv>
#include <cstdio>

namespace sluice {
namespace {

using std::chrono::milliseconds;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Parses leading digits of `s` (consuming them) into a non-negative int64.
std::optional<std::int64_t> take_digits(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && is_digit(s[n]))
    ++n;
  if (n == 0) return std::nullopt;
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + n, v);
  if (ec != std::errc() || ptr != s.data() + n) return std::nullopt;
  s.remove_prefix(n);
  return v;
}

std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

struct unit {
  std::string_view name;
  std::int64_t factor;
};

// Longest names first where one is a prefix of another ("ms" before "m").
constexpr unit duration_units[] = {
    {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}, {"d", 86'400'000}};
constexpr unit size_units[] = {{"TiB", std::int64_t{1} << 40},
                               {"GiB", std::int64_t{1} << 30},
                               {"MiB", std::int64_t{1} << 20},
                               {"KiB", std::int64_t{1} << 10},
                               {"B", 1}};

std::string quoted(std::string_view s) {
  return yaml_scalar(s, true);
}

}  // namespace

std::optional<std::int64_t> parse_config_integer(std::string_view text) {
  std::int64_t v = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (text.empty() || text[0] == '+') return std::nullopt;
  const auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

std::optional<milliseconds> parse_duration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::int64_t total = 0;
  while (!text.empty()) {
    const auto n = take_digits(text);
    if (!n) return std::nullopt;
    const unit* found = nullptr;
    for (const auto& u : duration_units) {
      if (text.starts_with(u.name)) {
        found = &u;
        break;
      }
    }
    if (found == nullptr) return std::nullopt;
    text.remove_prefix(found->name.size());
    const auto part = checked_mul(*n, found->factor);
    if (!part || __builtin_add_overflow(total, *part, &total)) return std::nullopt;
  }
  return milliseconds(total);
}

std::optional<std::int64_t> parse_size(std::string_view text) {
  auto n = take_digits(text);
  if (!n) return std::nullopt;
  text = trim(text);
  if (text.empty()) return n;
  for (const auto& u : size_units) {
    if (text == u.name) return checked_mul(*n, u.factor);
  }
  return std::nullopt;
}

std::optional<bool> parse_bool(std::string_view text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return std::nullopt;
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  if (trim(text).empty()) return out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    out.emplace_back(trim(text.substr(start, comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string format_duration(milliseconds d) {
  const std::int64_t ms = d.count();
  if (ms != 0) {
    if (ms % duration_units[4].factor == 0 && ms >= 7 * duration_units[4].factor) {
      return std::to_string(ms / duration_units[4].factor) + "d";
    }
    for (int i = 3; i >= 1; --i) {
      if (ms % duration_units[i].factor == 0) {
        return std::to_string(ms / duration_units[i].factor) + std::string(duration_units[i].name);
      }
    }
  }
  return std::to_string(ms) + "ms";
}

std::string format_size(std::int64_t bytes) {
  if (bytes != 0) {
    for (const auto& u : size_units) {
      if (u.factor > 1 && bytes % u.factor == 0) {
        return std::to_string(bytes / u.factor) + std::string(u.name);
      }
    }
  }
  return std::to_string(bytes);
}

std::string expectation(const config_key& key) {
  switch (key.type) {
    case value_type::string:
      return "a string";
    case value_type::integer:
      return "an integer between " + std::to_string(key.min) + " and " + std::to_string(key.max);
    case value_type::boolean:
      return "true or false";
    case value_type::duration:
      return "a duration between " + format_duration(milliseconds(key.min)) + " and " +
             format_duration(milliseconds(key.max)) +
             " (a number and a unit: ms, s, m, h, d; e.g. 30s, 24h)";
    case value_type::size:
      return "a size between " + format_size(key.min) + " and " + format_size(key.max) +
             " (bytes, or a number and a unit: KiB, MiB, GiB)";
    case value_type::enumeration: {
      std::string out = "one of ";
      for (std::size_t i = 0; i < key.allowed.size(); ++i) {
        if (i > 0) out += ", ";
        out += key.allowed[i];
      }
      return out;
    }
    case value_type::string_list:
      return "a list of strings";
    case value_type::string_map:
      return "a map of strings";
  }
  return "?";
}

std::variant<typed_value, std::string> type_scalar(const config_key& key, std::string_view text) {
  auto in_bounds = [&](std::int64_t v) { return v >= key.min && v <= key.max; };
  switch (key.type) {
    case value_type::string:
      return typed_value(std::string(text));
    case value_type::integer:
      if (auto v = parse_config_integer(trim(text)); v && in_bounds(*v)) return typed_value(*v);
      break;
    case value_type::boolean:
      if (auto v = parse_bool(trim(text))) return typed_value(*v);
      break;
    case value_type::duration:
      if (auto v = parse_duration(trim(text)); v && in_bounds(v->count())) return typed_value(*v);
      break;
    case value_type::size:
      if (auto v = parse_size(trim(text)); v && in_bounds(*v)) return typed_value(*v);
      break;
    case value_type::enumeration:
      for (const auto& allowed : key.allowed) {
        if (trim(text) == allowed) return typed_value(std::string(allowed));
      }
      break;
    case value_type::string_list:
      return typed_value(split_list(text));
    case value_type::string_map:
      if (trim(text).empty()) return typed_value(string_pairs{});
      break;
  }
  return "expected " + expectation(key);
}

std::string format_value(const config_key& key, const typed_value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return yaml_scalar(*s);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const auto* d = std::get_if<milliseconds>(&v)) return format_duration(*d);
  if (const auto* n = std::get_if<std::int64_t>(&v)) {
    return key.type == value_type::size ? format_size(*n) : std::to_string(*n);
  }
  std::string out;
  if (const auto* list = std::get_if<std::vector<std::string>>(&v)) {
    out = "[";
    for (std::size_t i = 0; i < list->size(); ++i)
      out += (i ? ", " : "") + quoted((*list)[i]);
    return out + "]";
  }
  const auto& pairs = std::get<string_pairs>(v);
  out = "{";
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    out += (i ? ", " : "") + quoted(pairs[i].first) + ": " + quoted(pairs[i].second);
  }
  return out + "}";
}

std::string yaml_scalar(std::string_view s, bool in_flow) {
  bool plain = !s.empty() && s.front() != ' ' && s.back() != ' ' && s.back() != ':';
  if (plain && std::string_view("-?:,[]{}#&*!|>'\"%@`").find(s.front()) != std::string_view::npos) {
    plain = false;
  }
  if (plain && (s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos)) {
    plain = false;
  }
  if (plain && in_flow && s.find_first_of(",[]{}") != std::string_view::npos) plain = false;
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) plain = false;
  }
  // Text that a YAML reader would take for a null, a boolean or a number.
  static constexpr std::string_view special[] = {"~",    "null",  "Null",  "NULL",  "true", "True",
                                                 "TRUE", "false", "False", "FALSE", "yes",  "Yes",
                                                 "no",   "No",    "on",    "On",    "off",  "Off"};
  for (auto word : special) {
    if (s == word) plain = false;
  }
  if (plain && (is_digit(s.front()) || s.front() == '.' || s.front() == '+')) {
    bool numeric = true;
    for (char c : s) {
      if (!is_digit(c) && c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-' && c != '_') {
        numeric = false;
      }
    }
    if (numeric) plain = false;
  }
  return plain ? std::string(s) : double_quoted(s);
}

std::string double_quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  return out + "\"";
}

}  // namespace sluice
