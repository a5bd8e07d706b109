#include "connector/prepare/transforms/timestamp_converter.h"

#include <charconv>
#include <chrono>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "core/catalog/table_catalog.h"

namespace sluice {
namespace {

using namespace std::chrono;
using instant = java_date_format::instant;
using kind = timestamp_converter::kind;
using unix_unit = timestamp_converter::unix_unit;

kind kind_of(const std::string& who, const std::string& text) {
  if (text == "string") return kind::string;
  if (text == "unix") return kind::unix;
  if (text == "Date") return kind::date;
  if (text == "Time") return kind::time;
  if (text == "Timestamp") return kind::timestamp;
  throw std::invalid_argument(who + ".target_type: '" + text +
                              "' is not one of string, unix, Date, Time, Timestamp");
}

unix_unit unit_of(const std::string& who, const std::string& text) {
  if (text.empty() || text == "milliseconds") return unix_unit::milliseconds;
  if (text == "seconds") return unix_unit::seconds;
  if (text == "microseconds") return unix_unit::microseconds;
  if (text == "nanoseconds") return unix_unit::nanoseconds;
  throw std::invalid_argument(who + ".unix_precision: '" + text +
                              "' is not one of seconds, milliseconds, microseconds, nanoseconds");
}

std::string required_field(const std::string& who, const std::string& field) {
  if (field.empty()) {
    throw std::invalid_argument(who +
                                ".field: empty means the whole value, which sluice cannot "
                                "convert: its value is always a row; name the column");
  }
  return field;
}

std::optional<java_date_format> format_of(const std::string& who, const transform_config& t,
                                          kind target) {
  if (t.format.empty()) {
    if (target == kind::string) {
      throw std::invalid_argument(who + ".format: required where target_type is string");
    }
    return std::nullopt;
  }
  try {
    return java_date_format(t.format);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(who + ".format: " + e.what());
  }
}

// The instants sluice writes and reads: years 1..9999, what PostgreSQL and Java share.
const instant earliest = sys_days(year(1) / January / 1);
const instant latest = sys_days(year(10000) / January / 1) - microseconds(1);

// Microseconds per unit of unix.precision (nanoseconds: 1/1000 of one).
int64_t per_unit(unix_unit u) {
  switch (u) {
    case unix_unit::seconds:
      return 1'000'000;
    case unix_unit::milliseconds:
      return 1'000;
    default:
      return 1;
  }
}

std::optional<instant> from_unix(int64_t count, unix_unit u) {
  if (u == unix_unit::nanoseconds) count /= 1'000;  // truncated toward zero, as Java's TimeUnit
  const int64_t per = per_unit(u);
  if (count < earliest.time_since_epoch().count() / per ||
      count > latest.time_since_epoch().count() / per) {
    return std::nullopt;
  }
  return instant(microseconds(count * per));
}

int64_t to_unix(instant t, unix_unit u) {
  const int64_t us = t.time_since_epoch().count();
  if (u == unix_unit::nanoseconds) return us * 1'000;  // years 1..9999 fit: |us| < 2.6e17
  return us / per_unit(u);                             // truncated toward zero, as Java's TimeUnit
}

// The decoders' text of date and time values (core's date_text / timestamp_text / time_text
// and ISO 8601 strings): read exactly, nothing after them.
class sql_text_reader {
 public:
  explicit sql_text_reader(std::string_view text) : _text(text) {}

  bool done() const { return _pos == _text.size(); }

  std::optional<sys_days> date() {
    std::optional<int64_t> y = number(4, 5);
    if (!y || !expect('-')) return std::nullopt;
    std::optional<int64_t> m = number(2, 2);
    if (!m || !expect('-')) return std::nullopt;
    std::optional<int64_t> d = number(2, 2);
    if (!d) return std::nullopt;
    const year_month_day ymd{year(static_cast<int>(*y)), month(static_cast<unsigned>(*m)),
                             day(static_cast<unsigned>(*d))};
    if (*y < 1 || *y > 9999 || !ymd.ok()) return std::nullopt;
    return sys_days(ymd);
  }

  // HH:MM:SS[.fraction], the fraction truncated to microseconds.
  std::optional<microseconds> clock() {
    std::optional<int64_t> h = number(2, 2);
    if (!h || *h > 23 || !expect(':')) return std::nullopt;
    std::optional<int64_t> m = number(2, 2);
    if (!m || *m > 59 || !expect(':')) return std::nullopt;
    std::optional<int64_t> s = number(2, 2);
    if (!s || *s > 59) return std::nullopt;
    microseconds out = hours(*h) + minutes(*m) + seconds(*s);
    if (_pos < _text.size() && _text[_pos] == '.') {
      ++_pos;
      int64_t scale = 100'000;
      const size_t start = _pos;
      for (; _pos < _text.size() && is_digit(_text[_pos]); ++_pos) {
        out += microseconds((_text[_pos] - '0') * scale);
        scale /= 10;
      }
      if (_pos == start) return std::nullopt;
    }
    return out;
  }

  // Z, +HH, +HH:MM, +HHMM, +HH:MM:SS: the offset east of UTC; zero when there is none.
  std::optional<seconds> offset() {
    if (done()) return seconds(0);
    if (_text[_pos] == 'Z') {
      ++_pos;
      return seconds(0);
    }
    if (_text[_pos] != '+' && _text[_pos] != '-') return std::nullopt;
    const int sign = _text[_pos++] == '-' ? -1 : 1;
    std::optional<int64_t> h = number(2, 2);
    if (!h) return std::nullopt;
    seconds out = hours(*h);
    for (int part = 0; part < 2 && !done(); ++part) {
      if (_text[_pos] == ':') ++_pos;
      std::optional<int64_t> n = number(2, 2);
      if (!n || *n > 59) return std::nullopt;
      out += part == 0 ? seconds(minutes(*n)) : seconds(*n);
    }
    return sign * out;
  }

  bool separator() { return expect('T') || expect(' '); }

 private:
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  bool expect(char c) {
    if (_pos >= _text.size() || _text[_pos] != c) return false;
    ++_pos;
    return true;
  }
  std::optional<int64_t> number(size_t min_digits, size_t max_digits) {
    const size_t start = _pos;
    int64_t n = 0;
    while (_pos < _text.size() && _pos - start < max_digits && is_digit(_text[_pos]))
      n = n * 10 + (_text[_pos++] - '0');
    if (_pos - start < min_digits) return std::nullopt;
    return n;
  }

  std::string_view _text;
  size_t _pos = 0;
};

std::optional<instant> read_sql_text(std::string_view text, type_id type) {
  sql_text_reader in(text);
  std::optional<instant> out;
  if (type == type_id::date) {
    if (auto d = in.date()) out = instant(*d);
  } else if (type == type_id::time) {
    if (auto c = in.clock()) out = instant(*c);
  } else {
    auto d = in.date();
    if (!d || !in.separator()) return std::nullopt;
    auto c = in.clock();
    auto zone = c ? in.offset() : std::nullopt;
    if (zone) out = instant(*d) + *c - *zone;
  }
  if (!out || !in.done() || *out < earliest || *out > latest) return std::nullopt;
  return out;
}

// Fixed outputs, translated once.
const java_date_format& date_format() {
  static const java_date_format f("yyyy-MM-dd");
  return f;
}
const java_date_format& clock_format() {
  static const java_date_format f("HH:mm:ss");
  return f;
}

// ".123", ".1234" …: the second's fraction, its significant digits only.
void append_fraction(std::string& out, instant t) {
  int64_t us = (t - floor<seconds>(t)).count();
  if (us == 0) return;
  char digits[7] = {'.', '0', '0', '0', '0', '0', '0'};
  for (int i = 6; i >= 1; --i, us /= 10)
    digits[i] = static_cast<char>('0' + us % 10);
  size_t len = 7;
  while (digits[len - 1] == '0')
    --len;
  out.append(digits, len);
}

bool temporal(type_id t) {
  return t == type_id::date || t == type_id::time || t == type_id::timestamp ||
         t == type_id::timestamptz;
}

std::string_view kind_name(value_kind k) {
  switch (k) {
    case value_kind::boolean:
      return "a boolean";
    case value_kind::json:
      return "a struct, map or array (JSON)";
    case value_kind::bytes:
      return "bytes";
    default:
      return "a value";
  }
}

std::string shown(const std::string& text) {
  constexpr size_t max_shown = 64;
  return "'" + text.substr(0, max_shown) + (text.size() > max_shown ? "…'" : "'");
}

std::string table_of(const change& c) {
  return c.table ? c.table->name.qualified() : std::string("the table");
}

}  // namespace

timestamp_converter::timestamp_converter(const std::string& name, const transform_config& t)
    : _who("transforms." + name),
      _field(required_field(_who, t.field)),
      _target(kind_of(_who, t.target_type)),
      _unit(unit_of(_who, t.unix_precision)),
      _format(format_of(_who, t, _target)) {}

shared_column_types timestamp_converter::types_for(const shared_column_types& types) {
  if (!types) return types;
  return _types.of(types, [this](const shared_column_types& from) { return derive(*from); });
}

shared_column_types timestamp_converter::derive(const column_types& types) const {
  auto out = std::make_shared<column_types>(types);
  for (column_types::column& col : out->columns) {
    if (col.name != _field) continue;
    // A time of day or an instant keeps the fraction digits its source had, if it had any.
    const bool had_fraction = col.type.id == type_id::time || col.type.id == type_id::timestamp ||
                              col.type.id == type_id::timestamptz;
    const int32_t precision = had_fraction ? col.type.precision : column_type::no_precision;
    switch (_target) {
      case kind::string:
        col.type = column_type{.id = type_id::string};
        break;
      case kind::unix:
        col.type = column_type{.id = type_id::int64};
        break;
      case kind::date:
        col.type = column_type{.id = type_id::date};
        break;
      case kind::time:
        col.type = column_type{.id = type_id::time, .precision = precision};
        break;
      case kind::timestamp:
        col.type = column_type{.id = type_id::timestamp, .precision = precision};
        break;
    }
    col.source_type.clear();  // the source's spelling no longer describes the column
  }
  return out;
}

std::variant<change_transform::outcome, std::string> timestamp_converter::apply(
    change& c, const record_context&) {
  // A key column keeps its value: the merge partitions changes on the key's canonical bytes,
  // and a conversion would move a row's history to another key mid-stream.
  for (const row_key* key : {&c.key, c.old_key ? &*c.old_key : nullptr}) {
    if (key == nullptr) continue;
    for (const std::string& k : key->columns) {
      if (k == _field) {
        return _who + ": " + k + " is a key column of " + table_of(c) +
               " and cannot be converted (the merge partitions rows on the key's values)";
      }
    }
  }
  const shared_column_types source = c.types;
  c.types = types_for(c.types);
  value* v = nullptr;
  for (column_value& col : c.after) {
    if (col.name == _field) {
      v = &col.v;
      break;
    }
  }
  if (v == nullptr || v->is_absent() || v->is_null()) return outcome::keep;
  const auto cannot = [&](std::string_view why) {
    return _who + ": column " + _field + " of " + table_of(c) + " " + std::string(why);
  };

  // The input's kind, from the value and its column's type, as Connect infers it.
  instant t;
  if (v->kind == value_kind::number) {
    int64_t count = 0;
    auto [end, ec] = std::from_chars(v->text.data(), v->text.data() + v->text.size(), count);
    if (ec != std::errc() || end != v->text.data() + v->text.size()) {
      return cannot("holds " + shown(v->text) + ", not an integer unix timestamp");
    }
    std::optional<instant> read = from_unix(count, _unit);
    if (!read) return cannot("holds " + shown(v->text) + ", a unix timestamp outside years 1-9999");
    t = *read;
  } else if (v->kind == value_kind::string) {
    const column_types::column* typed = source ? source->find(_field) : nullptr;
    const type_id type = typed ? typed->type.id : type_id::unknown;
    if (temporal(type)) {
      std::optional<instant> read = read_sql_text(v->text, type);
      if (!read) {
        return cannot("holds " + shown(v->text) + ", not a " + typed->type.to_text() +
                      " of years 1-9999");
      }
      t = *read;
    } else if (!_format) {
      return cannot("holds the string " + shown(v->text) +
                    ", which needs a format to be read as a timestamp");
    } else {
      auto read = _format->parse(v->text);
      if (auto* why = std::get_if<std::string>(&read)) {
        return cannot("holds " + shown(v->text) + ", which does not match the format '" +
                      _format->pattern() + "': " + *why);
      }
      t = std::get<instant>(read);
    }
  } else {
    return cannot("holds " + std::string(kind_name(v->kind)) + ", which is not a timestamp");
  }

  switch (_target) {
    case kind::string: {
      std::string& out = v->text;
      out.clear();
      _format->format(t, out);  // years 1..9999: every input was bounded to them
      v->kind = value_kind::string;
      break;
    }
    case kind::unix: {
      char buf[24];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, to_unix(t, _unit));
      v->kind = value_kind::number;
      v->text.assign(buf, end);
      break;
    }
    case kind::date:
      v->kind = value_kind::string;
      v->text.clear();
      date_format().format(t, v->text);
      break;
    case kind::time:
      v->kind = value_kind::string;
      v->text.clear();
      clock_format().format(t, v->text);
      append_fraction(v->text, t);
      break;
    case kind::timestamp:
      // UTC said explicitly: a timestamptz column reads the instant whatever the session's
      // TimeZone, a timestamp column drops the Z and keeps the UTC wall clock.
      v->kind = value_kind::string;
      v->text.clear();
      date_format().format(t, v->text);
      v->text.push_back('T');
      clock_format().format(t, v->text);
      append_fraction(v->text, t);
      v->text.push_back('Z');
      break;
  }
  return outcome::keep;
}

}  // namespace sluice
