#include "schemas/goldengate/goldengate_types.h"

#include <algorithm>
#include <array>
#include <limits>
#include <string>

namespace sluice {
namespace {

// How a rule reads the type's first argument list ("(10,2)", "(20 BYTE)", "(6)").
enum class uses : uint8_t {
  nothing,   // arguments, if any, say nothing the portable type keeps
  length,    // (n): string(n)
  digits,    // (p[,s]): decimal(p,s); (*,s): Oracle's 38 digits
  fraction,  // (p): fractional second digits; without it the rule's precision
};

struct type_rule {
  std::string_view name;  // upper case, words one space apart, arguments removed
  type_id id;
  uses args = uses::nothing;
  int32_t precision = column_type::no_precision;
};

// Oracle first (the common source), then the names other GoldenGate sources and Data
// Streams' primitive classifications use. FLOAT, REAL and DOUBLE PRECISION are Oracle NUMBER
// subtypes (FLOAT(126): 38 decimal digits), so FLOAT is an exact decimal; REAL and DOUBLE
// PRECISION only appear as such from other sources (Oracle's dictionary reports FLOAT(63) and
// FLOAT(126)), where they are binary floating point.
constexpr type_rule rules[] = {
    {"NUMBER", type_id::decimal, uses::digits},
    {"DECIMAL", type_id::decimal, uses::digits},
    {"DEC", type_id::decimal, uses::digits},
    {"NUMERIC", type_id::decimal, uses::digits},
    {"FLOAT", type_id::decimal},
    {"BINARY_FLOAT", type_id::float32},
    {"BINARY_DOUBLE", type_id::float64},
    {"REAL", type_id::float32},
    {"DOUBLE", type_id::float64},
    {"DOUBLE PRECISION", type_id::float64},
    // Oracle's INTEGER is NUMBER(38), and the JSON primitive "integer" is any integral number:
    // an exact decimal holds them all, where bigint would refuse values beyond 9.2e18.
    {"INTEGER", type_id::decimal},
    {"BIGINT", type_id::int64},
    {"INT", type_id::int32},
    {"MEDIUMINT", type_id::int32},
    {"SMALLINT", type_id::int16},
    {"TINYINT", type_id::int16},
    {"BOOLEAN", type_id::boolean},
    {"BOOL", type_id::boolean},
    {"VARCHAR2", type_id::string, uses::length},
    {"NVARCHAR2", type_id::string, uses::length},
    {"VARCHAR", type_id::string, uses::length},
    {"NVARCHAR", type_id::string, uses::length},
    {"CHARACTER VARYING", type_id::string, uses::length},
    {"CHAR", type_id::string, uses::length},
    {"NCHAR", type_id::string, uses::length},
    {"CHARACTER", type_id::string, uses::length},
    {"STRING", type_id::string, uses::length},
    {"CLOB", type_id::string},
    {"NCLOB", type_id::string},
    {"LONG", type_id::string},
    {"TEXT", type_id::string},
    {"NTEXT", type_id::string},
    {"ROWID", type_id::string},
    {"UROWID", type_id::string},
    {"RAW", type_id::bytes},
    {"LONG RAW", type_id::bytes},
    {"BLOB", type_id::bytes},
    {"BINARY", type_id::bytes},
    {"VARBINARY", type_id::bytes},
    {"BYTEA", type_id::bytes},
    {"DATE", type_id::timestamp, uses::nothing, 0},  // Oracle DATE has a time, to the second
    {"TIMESTAMP", type_id::timestamp, uses::fraction, 6},
    {"TIMESTAMP WITH TIME ZONE", type_id::timestamptz, uses::fraction, 6},
    {"TIMESTAMP WITH LOCAL TIME ZONE", type_id::timestamptz, uses::fraction, 6},
    {"INTERVAL", type_id::interval},  // INTERVAL YEAR TO MONTH, INTERVAL DAY TO SECOND
    {"JSON", type_id::json},
    {"XMLTYPE", type_id::xml},
    {"XML", type_id::xml},
    {"UUID", type_id::uuid},
};

constexpr std::array<std::string_view, 4> json_primitives = {"number", "string", "boolean",
                                                             "integer"};

char upper(char c) {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// A number argument: its leading digits ("20 BYTE" -> 20); "*" and anything else: none.
std::optional<int32_t> argument(std::string_view text) {
  while (!text.empty() && is_space(text.front()))
    text.remove_prefix(1);
  int64_t v = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    v = v * 10 + (text[i] - '0');
    if (v > std::numeric_limits<int32_t>::max()) return std::nullopt;
  }
  if (i == 0) return std::nullopt;
  return static_cast<int32_t>(v);
}

std::optional<int32_t> signed_argument(std::string_view text) {
  while (!text.empty() && is_space(text.front()))
    text.remove_prefix(1);
  if (text.starts_with('-')) {
    auto v = argument(text.substr(1));
    return v ? std::optional<int32_t>(-*v) : std::nullopt;
  }
  return argument(text);
}

// A type name split into its words (upper case, one space apart, without an owner prefix
// such as SYS.) and its first argument list.
struct type_words {
  std::string words;
  std::string_view args;  // inside the first parentheses
  bool star = false;      // the first argument is "*"
};

type_words split(std::string_view type) {
  type_words out;
  bool in_args = false;
  bool had_args = false;
  size_t args_start = 0;
  for (size_t i = 0; i < type.size(); ++i) {
    const char c = type[i];
    if (in_args) {
      if (c == ')') {
        in_args = false;
        if (!had_args) out.args = type.substr(args_start, i - args_start);
        had_args = true;
      }
      continue;
    }
    if (c == '(') {
      in_args = true;
      args_start = i + 1;
    } else if (is_space(c)) {
      if (!out.words.empty() && out.words.back() != ' ') out.words.push_back(' ');
    } else if (c == '.') {
      out.words.clear();  // SYS.XMLTYPE: the owner says nothing of the type
    } else if (c != '"') {
      out.words.push_back(upper(c));
    }
  }
  while (!out.words.empty() && out.words.back() == ' ')
    out.words.pop_back();
  const std::string_view first = out.args.substr(0, out.args.find(','));
  out.star = first.find('*') != std::string_view::npos;
  return out;
}

column_type from_rule(const type_rule& rule, const type_words& w) {
  column_type t;
  t.id = rule.id;
  t.precision = rule.precision;
  if (w.args.empty() && !w.star) return t;
  const size_t comma = w.args.find(',');
  const auto first = argument(w.args.substr(0, comma));
  switch (rule.args) {
    case uses::nothing:
      break;
    case uses::length:
      if (first) t.length = *first;
      break;
    case uses::fraction:
      if (first) t.precision = *first;
      break;
    case uses::digits: {
      // Oracle: NUMBER(*,s) has 38 digits; a negative scale rounds left of the point
      // (NUMBER(5,-2) holds integers of up to 7 digits); a scale above the precision holds
      // only fractions (NUMBER(3,5): 0.00123).
      const int32_t p = first ? *first : (w.star ? 38 : column_type::no_precision);
      if (p == column_type::no_precision || p == 0) break;
      const auto s = comma == std::string_view::npos ? std::optional<int32_t>(0)
                                                     : signed_argument(w.args.substr(comma + 1));
      if (!s) break;
      if (*s < 0) {
        // In 64 bits: the message bounds neither; past numeric's 1000 digits, unconstrained.
        const int64_t digits = int64_t{p} - int64_t{*s};
        if (digits <= 1000) {
          t.precision = static_cast<int32_t>(digits);
          t.scale = 0;
        }
      } else {
        t.precision = std::max(p, *s);
        t.scale = *s;
      }
      break;
    }
  }
  return t;
}

}  // namespace

column_type goldengate_column_type(std::string_view type) {
  type_words w = split(type);
  if (w.words.starts_with("INTERVAL ")) w.words.resize(8);  // YEAR TO MONTH, DAY TO SECOND
  for (const type_rule& rule : rules) {
    if (rule.name == w.words) return from_rule(rule, w);
  }
  return {};
}

bool is_json_primitive(std::string_view type) {
  if (type.empty()) return true;
  return std::any_of(json_primitives.begin(), json_primitives.end(), [&](std::string_view p) {
    return std::equal(p.begin(), p.end(), type.begin(), type.end(),
                      [](char a, char b) { return upper(a) == upper(b); });
  });
}

column_type json_schema_column_type(const json_schema_property& p) {
  struct format_rule {
    std::string_view format;
    type_id id;
  };
  static constexpr format_rule formats[] = {
      {"date-time", type_id::timestamp}, {"date", type_id::date},  {"time", type_id::time},
      {"uuid", type_id::uuid},           {"byte", type_id::bytes}, {"binary", type_id::bytes},
  };
  column_type t;
  if (p.type == "integer") {
    t.id = type_id::decimal;  // any integral number (Oracle's NUMBER(38)): exact, unbounded
  } else if (p.type == "number") {
    t.id = type_id::decimal;
  } else if (p.type == "boolean") {
    t.id = type_id::boolean;
  } else if (p.type == "object" || p.type == "array") {
    t.id = type_id::json;
  } else if (p.type == "string") {
    t.id = type_id::string;
    for (const format_rule& f : formats) {
      if (f.format == p.format) t.id = f.id;
    }
    if (p.content_encoding == "base64") t.id = type_id::bytes;
    if (t.id == type_id::string && p.max_length && *p.max_length >= 0 &&
        *p.max_length <= std::numeric_limits<int32_t>::max()) {
      t.length = static_cast<int32_t>(*p.max_length);
    }
  }
  return t;
}

}  // namespace sluice
