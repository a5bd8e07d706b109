#include "core/model/column_type.h"

#include <algorithm>
#include <charconv>

namespace sluice {
namespace {

struct type_name {
  type_id id;
  std::string_view name;
};

constexpr type_name names[] = {
    {type_id::unknown, "unknown"},
    {type_id::boolean, "boolean"},
    {type_id::int16, "int16"},
    {type_id::int32, "int32"},
    {type_id::int64, "int64"},
    {type_id::float32, "float32"},
    {type_id::float64, "float64"},
    {type_id::decimal, "decimal"},
    {type_id::string, "string"},
    {type_id::bytes, "bytes"},
    {type_id::uuid, "uuid"},
    {type_id::json, "json"},
    {type_id::xml, "xml"},
    {type_id::date, "date"},
    {type_id::time, "time"},
    {type_id::timetz, "timetz"},
    {type_id::timestamp, "timestamp"},
    {type_id::timestamptz, "timestamptz"},
    {type_id::interval, "interval"},
    {type_id::text, "text"},
};

std::string_view name_of(type_id id) {
  for (const type_name& n : names) {
    if (n.id == id) return n.name;
  }
  return "unknown";
}

bool is_integer(type_id id) {
  return id == type_id::int16 || id == type_id::int32 || id == type_id::int64;
}

int integer_rank(type_id id) {
  return id == type_id::int16 ? 1 : id == type_id::int32 ? 2 : 3;
}

// Decimal digits an integer type may need.
int32_t integer_digits(type_id id) {
  return id == type_id::int16 ? 5 : id == type_id::int32 ? 10 : 19;
}

bool has_precision(type_id id) {
  return id == type_id::time || id == type_id::timetz || id == type_id::timestamp ||
         id == type_id::timestamptz;
}

bool is_numeric(type_id id) {
  return is_integer(id) || id == type_id::decimal || id == type_id::float32 ||
         id == type_id::float64;
}

std::optional<int32_t> parse_int(std::string_view text) {
  int32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

column_type unbounded(type_id id, bool array) {
  column_type t;
  t.id = id;
  t.array = array;
  return t;
}

}  // namespace

std::string column_type::to_text() const {
  std::string out(name_of(id));
  if (id == type_id::decimal && precision != no_precision) {
    out += "(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
  } else if (id == type_id::string && length != no_length) {
    out += "(" + std::to_string(length) + ")";
  } else if (has_precision(id) && precision != no_precision) {
    out += "(" + std::to_string(precision) + ")";
  }
  if (array) out += "[]";
  return out;
}

std::optional<column_type> column_type::parse(std::string_view text) {
  column_type t;
  if (text.ends_with("[]")) {
    t.array = true;
    text.remove_suffix(2);
  }
  std::string_view args;
  if (const size_t open = text.find('('); open != std::string_view::npos) {
    if (!text.ends_with(")")) return std::nullopt;
    args = text.substr(open + 1, text.size() - open - 2);
    text = text.substr(0, open);
  }
  const auto* n = std::find_if(std::begin(names), std::end(names),
                               [&](const type_name& tn) { return tn.name == text; });
  if (n == std::end(names)) return std::nullopt;
  t.id = n->id;
  if (args.empty()) return t;
  if (t.id == type_id::decimal) {
    const size_t comma = args.find(',');
    if (comma == std::string_view::npos) return std::nullopt;
    auto p = parse_int(args.substr(0, comma));
    auto s = parse_int(args.substr(comma + 1));
    if (!p || !s) return std::nullopt;
    t.precision = *p;
    t.scale = *s;
  } else if (t.id == type_id::string) {
    auto l = parse_int(args);
    if (!l) return std::nullopt;
    t.length = *l;
  } else if (has_precision(t.id)) {
    auto p = parse_int(args);
    if (!p) return std::nullopt;
    t.precision = *p;
  } else {
    return std::nullopt;
  }
  return t;
}

bool widens(const column_type& from, const column_type& to) {
  if (from == to) return true;
  if (from.array != to.array) return false;
  // Text without a bound holds the text of anything (enums, bits, numbers, times).
  if (to.id == type_id::string && to.length == column_type::no_length) return true;
  if (to.id == type_id::text && from.id == type_id::text) return true;
  if (is_integer(from.id) && is_integer(to.id)) {
    return integer_rank(from.id) <= integer_rank(to.id);
  }
  if (is_integer(from.id) && to.id == type_id::decimal) {
    return to.precision == column_type::no_precision ||
           to.precision - to.scale >= integer_digits(from.id);
  }
  if (from.id == type_id::float32 && to.id == type_id::float64) return true;
  if (from.id == type_id::decimal && to.id == type_id::decimal) {
    if (to.precision == column_type::no_precision) return true;
    if (from.precision == column_type::no_precision) return false;
    return to.scale >= from.scale && to.precision - to.scale >= from.precision - from.scale;
  }
  if (from.id == type_id::string && to.id == type_id::string) {
    return from.length != column_type::no_length && from.length <= to.length;
  }
  if (from.id == to.id && has_precision(from.id)) {
    // No stated precision is the most the target keeps (PostgreSQL: microseconds).
    if (to.precision == column_type::no_precision) return true;
    return from.precision != column_type::no_precision && from.precision <= to.precision;
  }
  return false;
}

column_type wider_of(const column_type& a, const column_type& b) {
  if (!a.known()) return b;
  if (!b.known()) return a;
  if (widens(a, b)) return b;
  if (widens(b, a)) return a;
  if (a.array == b.array) {
    // Numbers of two families: an unconstrained decimal holds every one exactly (floats
    // widen among themselves above).
    if (is_numeric(a.id) && is_numeric(b.id)) return unbounded(type_id::decimal, a.array);
    if (a.id == b.id && has_precision(a.id)) return unbounded(a.id, a.array);
  }
  return unbounded(type_id::string, false);
}

const column_types::column* column_types::find(std::string_view name) const {
  for (const column& c : columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace sluice
