#include "sinks/postgres/plan/value_fit.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/model/value.h"
#include "sinks/plan/unfit_values.h"
#include "sinks/postgres/plan/pg_type.h"

namespace sluice {
namespace {

// What one target column checks.
struct fit_rule {
  enum class kind : uint8_t { none, length, element_length, integer, digits } what = kind::none;
  int64_t bound = 0;                  // characters, or integer digits for numeric(p,s)
  int64_t low = 0, high = 0;          // integer range, as magnitudes of 19 digits at most
  const std::string* type = nullptr;  // the column's type, for the reason
  const planned_column* column = nullptr;
};

fit_rule rule_for(const column_def& col, const planned_column* planned) {
  fit_rule r;
  r.type = &col.type;
  r.column = planned;
  const auto t = portable_of_pg(col.type);
  if (!t) return r;
  if (t->array) {
    // The cast to varchar(n)[] cuts each element short without a word: their lengths are
    // checked (other element types fail the cast loudly, and the isolation names the row).
    if (t->id == type_id::string && t->length != column_type::no_length) {
      r.what = fit_rule::kind::element_length;
      r.bound = t->length;
    }
    return r;
  }
  switch (t->id) {
    case type_id::string:
      if (t->length != column_type::no_length) {
        r.what = fit_rule::kind::length;
        r.bound = t->length;
      }
      break;
    case type_id::int16:
      r = {fit_rule::kind::integer, 0, INT16_MIN, INT16_MAX, &col.type, planned};
      break;
    case type_id::int32:
      r = {fit_rule::kind::integer, 0, INT32_MIN, INT32_MAX, &col.type, planned};
      break;
    case type_id::int64:
      r = {fit_rule::kind::integer, 0, INT64_MIN, INT64_MAX, &col.type, planned};
      break;
    case type_id::decimal:
      // PostgreSQL 15 allows a scale above the precision (numeric(2,5): fractions only).
      if (t->precision != column_type::no_precision && t->precision >= t->scale) {
        r.what = fit_rule::kind::digits;
        r.bound = t->precision - t->scale;
      }
      break;
    default:
      break;
  }
  return r;
}

// The characters (code points) of UTF-8 text beyond `bound` are all spaces: PostgreSQL
// truncates those into varchar(n) and char(n) without an error.
bool fits_length(std::string_view text, int64_t bound, int64_t& chars) {
  chars = 0;
  size_t cut = text.size();
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xc0) == 0x80) continue;
    if (chars == bound) cut = i;
    ++chars;
  }
  if (chars <= bound) return true;
  return text.substr(cut).find_first_not_of(' ') == std::string_view::npos;
}

// The most characters (code points, an escape counting as one) of any string in JSON text:
// the elements an array literal gets from a JSON array.
int64_t longest_json_string(std::string_view json) {
  int64_t longest = 0, chars = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (!in_string) {
      if (c == '"') in_string = true, chars = 0;
      continue;
    }
    if (c == '"') {
      in_string = false;
      longest = std::max(longest, chars);
      continue;
    }
    if (c == '\\') {
      // Any escape is one character; a \uD800-\uDBFF high surrogate and the escape after it
      // are one together.
      const bool high_surrogate = json.substr(i + 1, 2) == "uD" || json.substr(i + 1, 2) == "ud";
      const char third = i + 3 < json.size() ? json[i + 3] : '0';
      i += json.substr(i + 1, 1) == "u" ? 5 : 1;
      if (high_surrogate && std::string_view("89abAB").find(third) != std::string_view::npos) {
        i += 6;  // the low surrogate's \uXXXX
      }
      ++chars;
      continue;
    }
    if ((static_cast<unsigned char>(c) & 0xc0) != 0x80) ++chars;
  }
  return longest;
}

// Whether text is an integer within [low, high] (an optional sign and digits, as
// PostgreSQL's integer input reads it, surrounding spaces aside).
bool fits_integer(std::string_view text, int64_t low, int64_t high) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ')
    text.remove_suffix(1);
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return false;
  // Accumulated as a negative number, whose range holds INT64_MIN.
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const int d = c - '0';
    if (v < (INT64_MIN + d) / 10) return false;
    v = v * 10 - d;
  }
  if (negative) return v >= low;
  return v != INT64_MIN && -v <= high;
}

// Integer digits of a decimal number's text (what numeric(p,s) bounds); nothing for text
// PostgreSQL reads otherwise (NaN, Infinity, not a number): left to its input check. Counted
// in place: checked for every numeric value of a batch, it allocates nothing.
std::optional<int64_t> integer_digits(std::string_view text) {
  const auto digits = canonical_integer_digits(text);
  if (!digits) return std::nullopt;
  return static_cast<int64_t>(*digits);
}

std::string shown(const value& v) {
  std::string text = v.kind == value_kind::bytes ? "(" + std::to_string(v.text.size()) + " bytes)"
                                                 : "\"" + v.text.substr(0, 60) + "\"";
  if (v.kind != value_kind::bytes && v.text.size() > 60) text.insert(text.size() - 1, "...");
  return text;
}

// Why the value does not fit the rule's column, or nothing when it does.
std::optional<std::string> misfit(const fit_rule& r, const std::string& column, const value& v) {
  if (r.what == fit_rule::kind::none || v.is_null() || v.is_absent()) return std::nullopt;
  std::string why;
  switch (r.what) {
    case fit_rule::kind::length: {
      if (v.kind == value_kind::bytes) {
        // Written to a text column as its base64 text.
        const int64_t chars = static_cast<int64_t>((v.text.size() + 2) / 3 * 4);
        if (chars <= r.bound) return std::nullopt;
        why = std::to_string(chars) + " characters of base64";
        break;
      }
      int64_t chars = 0;
      if (fits_length(v.text, r.bound, chars)) return std::nullopt;
      why = std::to_string(chars) + " characters";
      break;
    }
    case fit_rule::kind::element_length: {
      if (v.kind != value_kind::json) return std::nullopt;
      const int64_t longest = longest_json_string(v.text);
      if (longest <= r.bound) return std::nullopt;
      why = "an element of " + std::to_string(longest) + " characters";
      break;
    }
    case fit_rule::kind::integer:
      if (v.kind == value_kind::bytes || fits_integer(v.text, r.low, r.high)) return std::nullopt;
      why = "not an integer in its range";
      break;
    case fit_rule::kind::digits: {
      if (v.kind != value_kind::number && v.kind != value_kind::string) return std::nullopt;
      const auto digits = integer_digits(v.text);
      if (!digits || *digits <= r.bound) return std::nullopt;
      why = std::to_string(*digits) + " integer digits, the type holds " + std::to_string(r.bound);
      break;
    }
    case fit_rule::kind::none:
      return std::nullopt;
  }
  std::string out =
      "column \"" + column + "\" (" + *r.type + ") cannot hold " + shown(v) + " (" + why + ")";
  if (r.column && r.column->type.known()) {
    const auto have = portable_of_pg(*r.type);
    if (have && !widens(r.column->type, *have)) {
      out += "; the stream's type is " + r.column->type.to_text() +
             " (auto.evolve.widen: true widens the column)";
    }
  }
  return out;
}

}  // namespace

void reject_unfit_values(table_plan& plan, const table_shape& shape,
                         std::vector<dead_letter>& rejects) {
  reject_unfit_items(
      plan, shape, rule_for, [](const fit_rule& r) { return r.what != fit_rule::kind::none; },
      misfit, rejects);
}

}  // namespace sluice
