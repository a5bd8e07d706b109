#include "connector/prepare/transforms/cast.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "core/catalog/table_catalog.h"
#include "core/model/base64.h"

namespace sluice {
namespace {

using target = cast_transform::target;

struct target_name {
  std::string_view name;
  target to;
};
constexpr target_name targets[] = {
    {"int8", target::int8},       {"int16", target::int16},     {"int32", target::int32},
    {"int64", target::int64},     {"float32", target::float32}, {"float64", target::float64},
    {"boolean", target::boolean}, {"string", target::string},
};

std::string_view name_of(target to) {
  for (const target_name& t : targets) {
    if (t.to == to) return t.name;
  }
  return "?";
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return out;
}

std::unordered_map<std::string, target> parse_spec(const std::string& who,
                                                   const std::vector<std::string>& spec) {
  if (spec.empty()) throw std::invalid_argument(who + ": lists no field:type to cast");
  std::unordered_map<std::string, target> out;
  for (const std::string& entry : spec) {
    const size_t colon = entry.find(':');
    if (colon == std::string::npos) {
      throw std::invalid_argument(
          who + ": '" + entry +
          "' casts the whole value, which sluice cannot do: its value is always a row; "
          "name the column (column:" +
          std::string(trimmed(entry)) + ")");
    }
    if (entry.find(':', colon + 1) != std::string::npos) {
      throw std::invalid_argument(who + ": '" + entry + "' is not field:type");
    }
    const std::string field(trimmed(std::string_view(entry).substr(0, colon)));
    const std::string type = lower(trimmed(std::string_view(entry).substr(colon + 1)));
    if (field.empty()) throw std::invalid_argument(who + ": '" + entry + "' names no field");
    const auto* found = std::find_if(std::begin(targets), std::end(targets),
                                     [&](const target_name& t) { return t.name == type; });
    if (found == std::end(targets)) {
      throw std::invalid_argument(who + ": '" + entry + "' casts to " + type +
                                  ", not one of int8, int16, int32, int64, float32, float64, "
                                  "boolean, string");
    }
    if (!out.emplace(field, found->to).second) {
      throw std::invalid_argument(who + ": " + field + " is cast twice");
    }
  }
  return out;
}

bool is_integer(target to) {
  return to == target::int8 || to == target::int16 || to == target::int32 || to == target::int64;
}

std::pair<int64_t, int64_t> range_of(target to) {
  switch (to) {
    case target::int8:
      return {std::numeric_limits<int8_t>::min(), std::numeric_limits<int8_t>::max()};
    case target::int16:
      return {std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max()};
    case target::int32:
      return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default:
      return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

type_id type_of(target to) {
  switch (to) {
    case target::int8:  // no one-byte type: the narrowest that holds it
    case target::int16:
      return type_id::int16;
    case target::int32:
      return type_id::int32;
    case target::int64:
      return type_id::int64;
    case target::float32:
      return type_id::float32;
    case target::float64:
      return type_id::float64;
    case target::boolean:
      return type_id::boolean;
    case target::string:
      break;
  }
  return type_id::string;
}

// Text that is a date, a time or a timestamp (Connect's Date, Time, Timestamp logical types,
// which Connect casts to their day or millisecond counts).
bool temporal(const column_type* t) {
  if (t == nullptr) return false;
  switch (t->id) {
    case type_id::date:
    case type_id::time:
    case type_id::timetz:
    case type_id::timestamp:
    case type_id::timestamptz:
    case type_id::interval:
      return true;
    default:
      return false;
  }
}

// The value as shown in a reason: bounded, so that a long text does not swell the letter.
std::string shown(const value& v) {
  constexpr size_t max_shown = 64;
  if (v.kind == value_kind::bytes) return std::to_string(v.text.size()) + " bytes";
  std::string out = "'" + v.text.substr(0, max_shown);
  out += v.text.size() > max_shown ? "…'" : "'";
  return out;
}

template <typename T>
void set_number(value& v, T n) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  v.kind = value_kind::number;
  v.text.assign(buf, static_cast<size_t>(end - buf));
}

template <typename F>
void set_float(value& v, F f) {
  if (std::isnan(f)) {
    v.kind = value_kind::string;  // as the decoders send them: PostgreSQL reads these words
    v.text.assign("NaN");
  } else if (std::isinf(f)) {
    v.kind = value_kind::string;
    v.text.assign(f > 0 ? "Infinity" : "-Infinity");
  } else {
    set_number(v, f);
  }
}

// A JSON number's integer part, truncated toward zero (Connect's Number.longValue() for a
// fraction); nothing when it holds no int64 or is no number.
std::optional<int64_t> integer_part(std::string_view text) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec == std::errc() && end == text.data() + text.size()) return n;
  if (ec == std::errc::result_out_of_range) return std::nullopt;
  // A fraction or an exponent: the canonical text has neither exponent nor sign on zero.
  std::optional<std::string> canonical = canonical_number(text, 64);
  if (!canonical) return std::nullopt;
  std::string_view whole(*canonical);
  whole = whole.substr(0, whole.find('.'));
  if (whole.empty() || whole == "-") return 0;  // "0.5", "-0.5" (canonical has no "-0")
  auto [e2, ec2] = std::from_chars(whole.data(), whole.data() + whole.size(), n);
  if (ec2 != std::errc() || e2 != whole.data() + whole.size()) return std::nullopt;
  return n;
}

// Java's Integer.parseInt and kin: an optional sign and ASCII digits, nothing else.
std::optional<int64_t> parse_java_integer(std::string_view text, bool& in_range) {
  in_range = true;
  // from_chars takes a '-' but no '+'; Java takes one sign of either kind.
  if (text.starts_with('+') && !text.starts_with("+-")) text.remove_prefix(1);
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || end != text.data() + text.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) in_range = false;
  if (ec != std::errc()) return std::nullopt;
  return n;
}

// Java's Float.parseFloat / Double.parseDouble on decimal text: blanks around it, a sign,
// NaN and Infinity spelled as Java spells them. Nothing for anything else (and out of range).
template <typename F>
std::optional<F> parse_java_float(std::string_view text, bool& in_range) {
  in_range = true;
  text = trimmed(text);
  bool negative = false;
  std::string_view body = text;
  if (!body.empty() && (body.front() == '+' || body.front() == '-')) {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (body == "NaN") return std::numeric_limits<F>::quiet_NaN();
  if (body == "Infinity") {
    return negative ? -std::numeric_limits<F>::infinity() : std::numeric_limits<F>::infinity();
  }
  // from_chars would also take "inf" and "nan", which Java does not.
  if (body.empty() ||
      !(std::isdigit(static_cast<unsigned char>(body.front())) || body.front() == '.'))
    return std::nullopt;
  F f{};
  auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), f);
  if (end != body.data() + body.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    in_range = false;
    return std::nullopt;
  }
  if (ec != std::errc()) return std::nullopt;
  return negative ? -f : f;
}

// Casts v in place; why it cannot be (the reason's tail, after the column).
std::optional<std::string> cast_value(value& v, target to, const column_type* type) {
  const auto cannot = [&](std::string_view why) {
    return std::optional<std::string>(shown(v) + " " + std::string(why));
  };
  if (v.kind == value_kind::json) {
    return "is a struct, map or array (JSON), which Connect's Cast does not cast";
  }
  if (v.kind == value_kind::bytes) {
    if (to != target::string) {
      return "holds bytes, which Connect's Cast casts only to string (base64)";
    }
    const std::string bytes = std::move(v.text);
    v.kind = value_kind::string;
    v.text.clear();
    append_base64(v.text, bytes);
    return std::nullopt;
  }
  if (to == target::string) {
    if (v.kind == value_kind::boolean || v.kind == value_kind::number) v.kind = value_kind::string;
    return std::nullopt;  // the text is the string
  }
  if (v.kind == value_kind::string && temporal(type)) {
    return cannot("is a " + type->to_text() +
                  ", not cast to a number or boolean here: use TimestampConverter "
                  "(target.type unix) for its epoch count");
  }
  if (v.kind == value_kind::boolean) {
    const bool b = v.text == "true";
    if (to == target::boolean) return std::nullopt;
    v.kind = value_kind::number;
    v.text.assign(b ? "1" : "0");
    return std::nullopt;
  }
  if (to == target::boolean) {
    if (v.kind == value_kind::string) {
      v.kind = value_kind::boolean;
      v.text.assign(lower(v.text) == "true" ? "true" : "false");  // Boolean.parseBoolean
      return std::nullopt;
    }
    std::optional<size_t> digits = canonical_integer_digits(v.text);
    if (!digits) return cannot("is not a number");
    v.kind = value_kind::boolean;
    v.text.assign(*digits > 0 ? "true" : "false");
    return std::nullopt;
  }
  const std::string_view type_name = name_of(to);
  bool in_range = true;
  if (is_integer(to)) {
    std::optional<int64_t> n;
    if (v.kind == value_kind::number) {
      n = integer_part(v.text);
      // A number that parses as no int64 is either too long or no number at all.
      if (!n && canonical_integer_digits(v.text)) in_range = false;
      if (!n && in_range) return cannot("is not a number");
    } else {
      n = parse_java_integer(v.text, in_range);
      if (!n && in_range) return cannot("is not an integer");
    }
    const auto [lo, hi] = range_of(to);
    if (!n || *n < lo || *n > hi) return cannot("is out of range for " + std::string(type_name));
    set_number(v, *n);
    return std::nullopt;
  }
  if (to == target::float32) {
    std::optional<float> f = parse_java_float<float>(v.text, in_range);
    if (!f) return cannot(in_range ? "is not a number" : "is out of range for float32");
    set_float(v, *f);
  } else {
    std::optional<double> d = parse_java_float<double>(v.text, in_range);
    if (!d) return cannot(in_range ? "is not a number" : "is out of range for float64");
    set_float(v, *d);
  }
  return std::nullopt;
}

std::string table_of(const change& c) {
  return c.table ? c.table->name.qualified() : std::string("the table");
}

}  // namespace

cast_transform::cast_transform(const std::string& name, const transform_config& t)
    : _who("transforms." + name), _casts(parse_spec(_who + ".spec", t.spec)) {}

shared_column_types cast_transform::types_for(const shared_column_types& types) {
  if (!types) return types;
  return _types.of(types, [this](const shared_column_types& from) { return derive(*from); });
}

shared_column_types cast_transform::derive(const column_types& types) const {
  auto out = std::make_shared<column_types>(types);
  for (column_types::column& col : out->columns) {
    auto cast = _casts.find(col.name);
    if (cast == _casts.end()) continue;
    col.type = column_type{.id = type_of(cast->second)};
    col.source_type.clear();  // the source's spelling no longer describes the column
  }
  return out;
}

std::variant<change_transform::outcome, std::string> cast_transform::apply(change& c,
                                                                           const record_context&) {
  // A key column keeps its type: the merge partitions changes on the key's canonical bytes,
  // and a cast (1.9 -> 1, "007" -> 7) would move a row's history between keys — or merge two
  // rows' — mid-stream. Refused rather than re-keyed.
  for (const row_key* key : {&c.key, c.old_key ? &*c.old_key : nullptr}) {
    if (key == nullptr) continue;
    for (const std::string& k : key->columns) {
      if (_casts.contains(k)) {
        return _who + ": " + k + " is a key column of " + table_of(c) +
               " and cannot be cast (the merge partitions rows on the key's values)";
      }
    }
  }
  for (column_value& col : c.after) {
    if (col.v.is_absent() || col.v.is_null()) continue;
    auto cast = _casts.find(col.name);
    if (cast == _casts.end()) continue;
    const column_types::column* typed = c.types ? c.types->find(col.name) : nullptr;
    if (auto why = cast_value(col.v, cast->second, typed ? &typed->type : nullptr)) {
      return _who + ": column " + col.name + " of " + table_of(c) + " cannot be cast to " +
             std::string(name_of(cast->second)) + ": " + *why;
    }
  }
  c.types = types_for(c.types);
  return outcome::keep;
}

}  // namespace sluice
