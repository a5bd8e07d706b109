#include "sinks/postgres/plan/pg_type.h"

#include <algorithm>
#include <charconv>

namespace sluice {
namespace {

constexpr int32_t max_numeric_precision = 1000;
constexpr int32_t max_varchar_length = 10485760;
constexpr int32_t max_time_precision = 6;

// format_type()'s names of the types whose spelling carries no modifier.
struct pg_name {
  std::string_view name;
  type_id id;
};
constexpr pg_name plain_names[] = {
    {"boolean", type_id::boolean}, {"smallint", type_id::int16},
    {"integer", type_id::int32},   {"bigint", type_id::int64},
    {"real", type_id::float32},    {"double precision", type_id::float64},
    {"text", type_id::string},     {"bytea", type_id::bytes},
    {"uuid", type_id::uuid},       {"jsonb", type_id::json},
    {"json", type_id::json},       {"xml", type_id::xml},
    {"date", type_id::date},       {"interval", type_id::interval},
    {"numeric", type_id::decimal}, {"character varying", type_id::string},
};

std::string precision_suffix(int32_t precision) {
  if (precision == column_type::no_precision) return "";
  return "(" + std::to_string(std::min(precision, max_time_precision)) + ")";
}

std::string scalar_type(const column_type& t) {
  switch (t.id) {
    case type_id::unknown:
      return "";
    case type_id::boolean:
      return "boolean";
    case type_id::int16:
      return "smallint";
    case type_id::int32:
      return "integer";
    case type_id::int64:
      return "bigint";
    case type_id::float32:
      return "real";
    case type_id::float64:
      return "double precision";
    case type_id::decimal:
      if (t.precision >= 1 && t.precision <= max_numeric_precision && t.scale >= 0 &&
          t.scale <= t.precision) {
        return "numeric(" + std::to_string(t.precision) + "," + std::to_string(t.scale) + ")";
      }
      return "numeric";
    case type_id::string:
      if (t.length >= 1 && t.length <= max_varchar_length) {
        return "character varying(" + std::to_string(t.length) + ")";
      }
      return "text";
    case type_id::bytes:
      return "bytea";
    case type_id::uuid:
      return "uuid";
    case type_id::json:
      return "jsonb";
    case type_id::xml:
      return "xml";
    case type_id::date:
      return "date";
    case type_id::time:
      return "time" + precision_suffix(t.precision) + " without time zone";
    case type_id::timetz:
      return "time" + precision_suffix(t.precision) + " with time zone";
    case type_id::timestamp:
      return "timestamp" + precision_suffix(t.precision) + " without time zone";
    case type_id::timestamptz:
      return "timestamp" + precision_suffix(t.precision) + " with time zone";
    case type_id::interval:
      return "interval";
    case type_id::text:
      return "text";
  }
  return "";
}

std::optional<int32_t> number_at(std::string_view text) {
  int32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

std::string pg_type_for(const column_type& type) {
  std::string out = scalar_type(type);
  if (!out.empty() && type.array) out += "[]";
  return out;
}

std::optional<column_type> portable_of_pg(std::string_view text) {
  column_type t;
  if (text.ends_with("[]")) {
    t.array = true;
    text.remove_suffix(2);
  }
  for (const pg_name& n : plain_names) {
    if (text == n.name) {
      t.id = n.id;
      return t;
    }
  }
  // Types with a modifier in parentheses: "numeric(12,2)", "character varying(80)",
  // "character(10)", "time(3) without time zone", "timestamp(6) with time zone".
  std::string_view head = text, args, tail;
  if (const size_t open = text.find('('); open != std::string_view::npos) {
    const size_t close = text.find(')', open);
    if (close == std::string_view::npos) return std::nullopt;
    head = text.substr(0, open);
    args = text.substr(open + 1, close - open - 1);
    tail = text.substr(close + 1);
  } else if (const size_t space = text.find(' '); space != std::string_view::npos) {
    head = text.substr(0, space);
    tail = text.substr(space);
  }
  if (head == "numeric" && tail.empty()) {
    const size_t comma = args.find(',');
    auto p = number_at(args.substr(0, comma));
    auto s = comma == std::string_view::npos ? std::optional<int32_t>(0)
                                             : number_at(args.substr(comma + 1));
    if (!p || !s) return std::nullopt;
    t.id = type_id::decimal;
    t.precision = *p;
    t.scale = *s;
    return t;
  }
  if ((head == "character varying" || head == "character") && tail.empty()) {
    auto l = number_at(args);
    if (!l) return std::nullopt;
    t.id = type_id::string;
    t.length = *l;
    return t;
  }
  if (head == "time" || head == "timestamp") {
    const bool zoned = tail == " with time zone";
    if (!zoned && tail != " without time zone") return std::nullopt;
    t.id = head == "time" ? (zoned ? type_id::timetz : type_id::time)
                          : (zoned ? type_id::timestamptz : type_id::timestamp);
    if (!args.empty()) {
      auto p = number_at(args);
      if (!p) return std::nullopt;
      t.precision = *p;
    }
    return t;
  }
  return std::nullopt;
}

}  // namespace sluice
