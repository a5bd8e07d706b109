#include "sinks/mariadb/plan/value_fit.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/model/value.h"
#include "sinks/mariadb/plan/mdb_type.h"
#include "sinks/plan/unfit_values.h"

namespace sluice::mdb {
namespace {

// What one target column checks.
struct fit_rule {
  enum class kind : uint8_t {
    none,
    chars,    // at most `bound` characters (code points)
    bytes,    // at most `bound` bytes
    integer,  // an integer in [-below, above]
    boolean,  // a boolean, 0 or 1
    decimal,  // decimal_fits(precision, scale), not negative when unsigned
  } what = kind::none;
  int64_t bound = 0;
  uint64_t below = 0, above = 0;  // the integer range, as magnitudes
  int32_t precision = 0, scale = 0;
  bool is_unsigned = false;
  bool text_column = false;           // bytes are written as their base64 text
  const std::string* type = nullptr;  // the column's type, for the reason
  const planned_column* column = nullptr;
};

std::optional<int64_t> number_in(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

fit_rule rule_for(const column_def& col, const planned_column* planned) {
  fit_rule r;
  r.type = &col.type;
  r.column = planned;
  // "name", "name(args)", either with " unsigned" (" zerofill") after it, as
  // information_schema.columns.column_type prints it.
  const std::string_view text = col.type;
  std::string_view head = text.substr(0, text.find_first_of("( ")), args;
  if (const size_t open = text.find('('); open != std::string_view::npos) {
    const size_t close = text.find(')', open);
    if (close == std::string_view::npos) return r;
    args = text.substr(open + 1, close - open - 1);
  }
  r.is_unsigned = text.find(" unsigned") != std::string_view::npos;
  const auto length = [&](fit_rule::kind what, bool text_column) {
    if (const auto n = number_in(args)) {
      r.what = what;
      r.bound = *n;
      r.text_column = text_column;
    }
  };
  const auto bytes = [&](int64_t n, bool text_column) {
    r.what = fit_rule::kind::bytes;
    r.bound = n;
    r.text_column = text_column;
  };
  const auto integer = [&](uint64_t below, uint64_t above, uint64_t unsigned_above) {
    r.what = fit_rule::kind::integer;
    r.below = r.is_unsigned ? 0 : below;
    r.above = r.is_unsigned ? unsigned_above : above;
  };
  if (head == "varchar" || head == "char") {
    length(fit_rule::kind::chars, true);
  } else if (head == "varbinary" || head == "binary") {
    length(fit_rule::kind::bytes, false);
  } else if (head == "tinytext" || head == "tinyblob") {
    bytes(255, head == "tinytext");
  } else if (head == "text" || head == "blob") {
    bytes(65'535, head == "text");
  } else if (head == "mediumtext" || head == "mediumblob") {
    bytes(16'777'215, head == "mediumtext");
  } else if (head == "tinyint" && args == "1" && !r.is_unsigned) {
    r.what = fit_rule::kind::boolean;  // what `boolean` is
  } else if (head == "tinyint") {
    integer(128, 127, 255);
  } else if (head == "smallint") {
    integer(32'768, 32'767, 65'535);
  } else if (head == "mediumint") {
    integer(8'388'608, 8'388'607, 16'777'215);
  } else if (head == "int") {
    integer(2'147'483'648, 2'147'483'647, 4'294'967'295);
  } else if (head == "bigint") {
    integer(uint64_t(INT64_MAX) + 1, INT64_MAX, UINT64_MAX);
  } else if (head == "decimal") {
    const size_t comma = args.find(',');
    const auto p = number_in(args.substr(0, comma));
    const auto s = comma == std::string_view::npos ? std::optional<int64_t>(0)
                                                   : number_in(args.substr(comma + 1));
    if (p && s && *s >= 0 && *s <= *p && *p <= max_decimal_precision) {
      r.what = fit_rule::kind::decimal;
      r.precision = int32_t(*p);
      r.scale = int32_t(*s);
    }
  }
  return r;
}

std::string_view trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

size_t code_points(std::string_view text) {
  size_t n = 0;
  for (char c : text)
    n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return n;
}

// What an integer column makes of a number's text: sign, digits, fraction, exponent, spaces
// around (MariaDB reads '1e3' as 1000 and rounds '1.5' to 2 without a word).
enum class integer_reading : uint8_t { fits, out_of_range, not_integer };

integer_reading read_integer(std::string_view text, uint64_t below, uint64_t above) {
  text = trimmed(text);
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  const size_t int_begin = i;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9')
    ++i;
  const std::string_view int_part = text.substr(int_begin, i - int_begin);
  std::string_view frac_part;
  if (i < text.size() && text[i] == '.') {
    const size_t frac_begin = ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9')
      ++i;
    frac_part = text.substr(frac_begin, i - frac_begin);
  }
  if (int_part.empty() && frac_part.empty()) return integer_reading::not_integer;
  int64_t exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool minus = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    const size_t exp_begin = i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
      exponent = std::min<int64_t>(exponent * 10 + (text[i] - '0'), 100'000);  // beyond any
    if (i == exp_begin) return integer_reading::not_integer;
    if (minus) exponent = -exponent;
  }
  if (i != text.size()) return integer_reading::not_integer;
  // The digits d0…dn-1 with the point after `point` of them.
  const int64_t n = int64_t(int_part.size() + frac_part.size());
  const int64_t point = int64_t(int_part.size()) + exponent;
  const auto digit = [&](int64_t k) {
    return k < int64_t(int_part.size()) ? int_part[size_t(k)]
                                        : frac_part[size_t(k) - int_part.size()];
  };
  for (int64_t k = std::max<int64_t>(point, 0); k < n; ++k)
    if (digit(k) != '0') return integer_reading::not_integer;
  uint64_t magnitude = 0;
  for (int64_t k = 0; k < point; ++k) {
    const int d = k < n ? digit(k) - '0' : 0;
    if (magnitude > (UINT64_MAX - uint64_t(d)) / 10) return integer_reading::out_of_range;
    magnitude = magnitude * 10 + uint64_t(d);
  }
  return magnitude <= (negative ? below : above) ? integer_reading::fits
                                                 : integer_reading::out_of_range;
}

// decimal_fits() with bounds beyond any number's digits (exponents count up to 100,000):
// whether the text is a number at all, whether its fraction has at most `scale` digits.
constexpr int32_t unbounded = 1 << 29;
bool is_number(std::string_view text) {
  return decimal_fits(text, 2 * unbounded, unbounded);
}
bool fraction_fits(std::string_view text, int32_t scale) {
  return decimal_fits(text, unbounded + scale, scale);
}
bool is_zero(std::string_view text) {
  return decimal_fits(text, 0, 0);  // no digit allowed on either side of the point
}

std::string range_text(const fit_rule& r) {
  return (r.below ? "-" + std::to_string(r.below) : "0") + " to " + std::to_string(r.above);
}

// The value for a reason: at most 60 bytes of its text, cut between characters.
std::string shown(const value& v) {
  if (v.kind == value_kind::bytes) return "(" + std::to_string(v.text.size()) + " bytes)";
  constexpr size_t most = 60;
  if (v.text.size() <= most) return "\"" + v.text + "\"";
  size_t cut = most;
  while (cut > 0 && (static_cast<unsigned char>(v.text[cut]) & 0xc0) == 0x80)
    --cut;
  return "\"" + v.text.substr(0, cut) + "...\"";
}

// Why the value does not fit the rule's column, or nothing when it does.
std::optional<std::string> misfit(const fit_rule& r, const std::string& column, const value& v) {
  if (r.what == fit_rule::kind::none || v.is_null() || v.is_absent()) return std::nullopt;
  std::string why;
  switch (r.what) {
    case fit_rule::kind::chars:
    case fit_rule::kind::bytes: {
      // As written: bytes into a text column are their base64 text (ASCII).
      const bool base64 = v.kind == value_kind::bytes && r.text_column;
      const size_t size = base64                            ? (v.text.size() + 2) / 3 * 4
                          : r.what == fit_rule::kind::chars ? code_points(v.text)
                                                            : v.text.size();
      if (int64_t(size) <= r.bound) return std::nullopt;
      why = std::to_string(size) + (r.what == fit_rule::kind::chars ? " characters" : " bytes") +
            (base64 ? " of base64" : "") + ", the type holds " + std::to_string(r.bound);
      break;
    }
    case fit_rule::kind::integer:
    case fit_rule::kind::boolean:
    case fit_rule::kind::decimal: {
      // What MariaDB converts by its own rules, and what it gets from a boolean: 1 or 0.
      if (v.kind != value_kind::number && v.kind != value_kind::string &&
          v.kind != value_kind::boolean)
        return std::nullopt;
      const std::string_view text =
          v.kind == value_kind::boolean ? (v.text == "true" ? "1" : "0") : trimmed(v.text);
      if (r.what == fit_rule::kind::boolean) {
        if (read_integer(text, 0, 1) == integer_reading::fits) return std::nullopt;
        why = "not a boolean, 0 or 1";
      } else if (r.what == fit_rule::kind::integer) {
        const integer_reading got = read_integer(text, r.below, r.above);
        if (got == integer_reading::fits) return std::nullopt;
        why = got == integer_reading::not_integer ? "not an integer"
                                                  : "out of its range, " + range_text(r);
      } else {
        const bool negative = r.is_unsigned && text.starts_with('-') && !is_zero(text);
        if (!negative && decimal_fits(text, r.precision, r.scale)) return std::nullopt;
        if (!is_number(text)) {
          why = "not a number";
        } else if (negative) {
          why = "negative, the type is unsigned";
        } else if (!fraction_fits(text, r.scale)) {
          why = "more than " + std::to_string(r.scale) +
                " fractional digits, which MariaDB would round";
        } else {
          why = "more than " + std::to_string(r.precision - r.scale) + " integer digits";
        }
      }
      break;
    }
    case fit_rule::kind::none:
      return std::nullopt;
  }
  std::string out =
      "column \"" + column + "\" (" + *r.type + ") cannot hold " + shown(v) + " (" + why + ")";
  if (r.column && r.column->type.known()) {
    const auto have = portable_of_mdb(*r.type);
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

}  // namespace sluice::mdb
