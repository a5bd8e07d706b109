#include "sinks/mariadb/plan/mdb_type.h"

#include <algorithm>
#include <charconv>
#include <numeric>

namespace sluice::mdb {
namespace {

constexpr int32_t max_time_precision = 6;
constexpr int32_t utf8mb4_bytes = 4;

std::string text_type(std::string_view type, sql_dialect d) {
  return std::string(type) + " CHARACTER SET utf8mb4 COLLATE " + std::string(d.text_collation());
}
std::string varchar(int64_t chars, sql_dialect d) {
  return text_type("varchar(" + std::to_string(chars) + ")", d);
}
std::string longtext(sql_dialect d) {
  return text_type("longtext", d);
}
std::string uuid_type(sql_dialect d) {
  if (d.uuid_type) return "uuid";
  return std::string("char(36) CHARACTER SET ascii COLLATE ") +
         (d.mysql ? "ascii_bin" : "ascii_nopad_bin");
}

int32_t time_precision(const column_type& t) {
  return t.precision == column_type::no_precision ? max_time_precision
                                                  : std::clamp(t.precision, 0, max_time_precision);
}

bool declarable_decimal(const column_type& t) {
  return t.precision >= 1 && t.precision <= max_decimal_precision && t.scale >= 0 &&
         t.scale <= max_decimal_scale && t.scale <= t.precision;
}

std::string decimal(int32_t p, int32_t s) {
  return "decimal(" + std::to_string(p) + "," + std::to_string(s) + ")";
}

// The unconstrained number (decimal_fits() guards its values).
std::string wide_decimal() {
  return decimal(max_decimal_precision, 30);
}

// Types whose definition does not depend on being a key column, or "" for text and bytes
// (which do).
std::string fixed_type(const column_type& t, sql_dialect d) {
  if (t.array) return "json";
  switch (t.id) {
    case type_id::boolean:
      return "boolean";
    case type_id::int16:
      return "smallint";
    case type_id::int32:
      return "int";
    case type_id::int64:
      return "bigint";
    case type_id::float32:
      return "float";
    case type_id::float64:
      return "double";
    case type_id::decimal:
      if (declarable_decimal(t)) return decimal(t.precision, t.scale);
      if (t.precision == column_type::no_precision) return wide_decimal();
      return "";  // wider than MariaDB declares: its text
    case type_id::uuid:
      return uuid_type(d);
    case type_id::date:
      return "date";
    case type_id::time:
      return "time(" + std::to_string(time_precision(t)) + ")";
    case type_id::timestamp:
    case type_id::timestamptz:
      return "datetime(" + std::to_string(time_precision(t)) + ")";
    default:
      return "";
  }
}

// Bytes a fixed type's values take in an index (MariaDB's storage sizes).
size_t fixed_key_bytes(const column_type& t, sql_dialect d) {
  static constexpr int digit_bytes[] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
  const auto digits = [](int32_t n) { return size_t(n / 9 * 4 + digit_bytes[n % 9]); };
  if (t.array) return 0;
  switch (t.id) {
    case type_id::boolean:
      return 1;
    case type_id::int16:
      return 2;
    case type_id::int32:
    case type_id::float32:
      return 4;
    case type_id::int64:
    case type_id::float64:
      return 8;
    case type_id::decimal:
      if (declarable_decimal(t)) return digits(t.precision - t.scale) + digits(t.scale);
      return digits(max_decimal_precision - 30) + digits(30);
    case type_id::uuid:
      return d.uuid_type ? 16 : 36;
    case type_id::date:
      return 3;
    case type_id::time:
      return 6;
    case type_id::timestamp:
    case type_id::timestamptz:
      return 8;
    default:
      return 0;
  }
}

std::optional<int32_t> number_at(std::string_view text) {
  int32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

std::string mdb_type_for(const column_type& type, sql_dialect d) {
  if (!type.known()) return "";
  if (std::string fixed = fixed_type(type, d); !fixed.empty()) return fixed;
  switch (type.id) {
    case type_id::json:
      return "json";
    case type_id::bytes:
      return "longblob";
    case type_id::string:
      if (type.length >= 1 && type.length <= max_varchar_chars) return varchar(type.length, d);
      return longtext(d);
    default:  // decimal beyond 65 digits, xml, timetz, interval, text
      return longtext(d);
  }
}

std::string mdb_type_for_kind(value_kind kind, bool mixed, sql_dialect d) {
  if (mixed) return longtext(d);
  switch (kind) {
    case value_kind::number:
      return wide_decimal();
    case value_kind::boolean:
      return "boolean";
    case value_kind::json:
      return "json";
    case value_kind::bytes:
      return "longblob";
    case value_kind::string:
    case value_kind::null:
    case value_kind::absent:
      return longtext(d);
  }
  return longtext(d);
}

std::vector<std::string> key_types(const std::vector<key_column>& key, sql_dialect d) {
  std::vector<std::string> out(key.size());
  // Variable-length columns: their index, the bytes they would like (0: as many as they get)
  // and the bytes one unit (character or byte) takes.
  struct variable {
    size_t index;
    size_t wanted;
    size_t unit;
  };
  std::vector<variable> open;
  size_t used = 0;
  for (size_t i = 0; i < key.size(); ++i) {
    const column_type& t = key[i].type;
    std::string fixed;
    if (t.known()) {
      if (t.id != type_id::json) fixed = fixed_type(t, d);
      if (fixed == "json") fixed.clear();  // an array: its JSON text, as varchar
    } else if (key[i].kind == value_kind::number) {
      fixed = wide_decimal();
    } else if (key[i].kind == value_kind::boolean) {
      fixed = "boolean";
    }
    if (!fixed.empty()) {
      out[i] = fixed;
      column_type sized = t;
      if (!t.known())
        sized.id = key[i].kind == value_kind::number ? type_id::decimal : type_id::boolean;
      used += fixed_key_bytes(sized, d);
      continue;
    }
    const bool bytes = t.known() ? t.id == type_id::bytes : key[i].kind == value_kind::bytes;
    const size_t unit = bytes ? 1 : utf8mb4_bytes;
    const size_t wanted =
        !bytes && t.id == type_id::string && t.length >= 1 ? size_t(t.length) * unit : 0;
    open.push_back({i, wanted, unit});
  }
  // Shortest wishes first, each taking at most an equal share of what is left.
  std::stable_sort(open.begin(), open.end(), [](const variable& a, const variable& b) {
    return (a.wanted == 0 ? SIZE_MAX : a.wanted) < (b.wanted == 0 ? SIZE_MAX : b.wanted);
  });
  size_t left = max_key_bytes > used ? max_key_bytes - used : 0;
  for (size_t k = 0; k < open.size(); ++k) {
    const variable& v = open[k];
    size_t share = left / (open.size() - k);
    if (v.wanted != 0) share = std::min(share, v.wanted);
    const size_t units = std::max<size_t>(share / v.unit, 1);
    left -= std::min(left, units * v.unit);
    out[v.index] =
        v.unit == 1 ? "varbinary(" + std::to_string(units) + ")" : varchar(int64_t(units), d);
  }
  return out;
}

std::optional<column_type> portable_of_mdb(std::string_view text) {
  column_type t;
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
  const bool is_unsigned = tail.starts_with(" unsigned");
  if (!is_unsigned && !tail.empty()) return std::nullopt;
  const auto integer = [&](type_id id, type_id unsigned_id) {
    t.id = is_unsigned ? unsigned_id : id;
    return t;
  };
  if (head == "tinyint") {
    if (args == "1" && !is_unsigned) {
      t.id = type_id::boolean;
      return t;
    }
    return integer(type_id::int16, type_id::int16);
  }
  if (head == "smallint") return integer(type_id::int16, type_id::int32);
  if (head == "mediumint") return integer(type_id::int32, type_id::int32);
  if (head == "int") return integer(type_id::int32, type_id::int64);
  if (head == "bigint") {
    if (!is_unsigned) return integer(type_id::int64, type_id::int64);
    t.id = type_id::decimal;
    t.precision = 20;
    return t;
  }
  if (is_unsigned && head != "decimal") return std::nullopt;
  if (head == "decimal") {
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
  if (head == "varchar" || head == "char") {
    auto l = number_at(args);
    if (!l) return std::nullopt;
    t.id = type_id::string;
    t.length = *l;
    return t;
  }
  if (head == "time" || head == "datetime" || head == "timestamp") {
    t.id = head == "time" ? type_id::time
                          : (head == "datetime" ? type_id::timestamp : type_id::timestamptz);
    t.precision = 0;
    if (!args.empty()) {
      auto p = number_at(args);
      if (!p) return std::nullopt;
      t.precision = *p;
    }
    return t;
  }
  if (!args.empty() && head != "float" && head != "double" && head != "varbinary" &&
      head != "binary") {
    return std::nullopt;
  }
  struct plain {
    std::string_view name;
    type_id id;
  };
  static constexpr plain plain_names[] = {
      {"float", type_id::float32},   {"double", type_id::float64},    {"tinytext", type_id::string},
      {"text", type_id::string},     {"mediumtext", type_id::string}, {"longtext", type_id::string},
      {"varbinary", type_id::bytes}, {"binary", type_id::bytes},      {"tinyblob", type_id::bytes},
      {"blob", type_id::bytes},      {"mediumblob", type_id::bytes},  {"longblob", type_id::bytes},
      {"uuid", type_id::uuid},       {"json", type_id::json},         {"date", type_id::date},
      {"boolean", type_id::boolean},
  };
  for (const plain& n : plain_names) {
    if (head == n.name) {
      t.id = n.id;
      return t;
    }
  }
  return std::nullopt;
}

bool decimal_fits(std::string_view number, int32_t precision, int32_t scale) {
  size_t i = 0;
  if (i < number.size() && (number[i] == '-' || number[i] == '+')) ++i;
  const size_t int_begin = i;
  while (i < number.size() && number[i] >= '0' && number[i] <= '9')
    ++i;
  std::string_view int_part = number.substr(int_begin, i - int_begin), frac_part;
  if (i < number.size() && number[i] == '.') {
    const size_t frac_begin = ++i;
    while (i < number.size() && number[i] >= '0' && number[i] <= '9')
      ++i;
    frac_part = number.substr(frac_begin, i - frac_begin);
  }
  if (int_part.empty() && frac_part.empty()) return false;
  int64_t exponent = 0;
  if (i < number.size() && (number[i] == 'e' || number[i] == 'E')) {
    ++i;
    if (i < number.size() && number[i] == '+') ++i;
    auto [end, ec] = std::from_chars(number.data() + i, number.data() + number.size(), exponent);
    if (ec != std::errc() || end == number.data() + i) return false;
    i = size_t(end - number.data());
    exponent = std::clamp<int64_t>(exponent, -100000, 100000);  // far beyond any decimal
  }
  if (i != number.size()) return false;
  // The significant digits d1…dn with the point after the k-th (k may be ≤ 0 or > n).
  std::string digits = std::string(int_part) + std::string(frac_part);
  const size_t lead = std::min(digits.find_first_not_of('0'), digits.size());
  if (lead == digits.size()) return true;  // zero
  const size_t trail = digits.size() - 1 - digits.find_last_not_of('0');
  const int64_t point = int64_t(int_part.size()) - int64_t(lead) + exponent;
  const int64_t significant = int64_t(digits.size() - lead - trail);
  const int64_t integer_digits = std::max<int64_t>(point, 0);
  const int64_t fraction_digits = std::max<int64_t>(significant - point, 0);
  return integer_digits <= precision - scale && fraction_digits <= scale;
}

}  // namespace sluice::mdb
