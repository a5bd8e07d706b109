#include "schemas/avro/avro_values.h"

#include <charconv>
#include <cmath>

#include <simdjson.h>

#include "core/model/json_text.h"
#include "schemas/common/json_value_reader.h"
#include "schemas/debezium/connect_logical_types.h"

namespace sluice {
namespace {

error mismatch(const avro_node& node) {
  return make_error(error_code::invalid_avro, "record does not match its schema (type " +
                                                  std::to_string(static_cast<int>(node.kind)) +
                                                  ")");
}

error cut(const avro_node& node) {
  return make_error(error_code::invalid_avro, "record cut short or out of range (type " +
                                                  std::to_string(static_cast<int>(node.kind)) +
                                                  ")");
}

void set(value& out, value_kind kind, std::string_view text) {
  out.kind = kind;
  out.text.assign(text);
}

template <typename T>
void set_number(value& out, T n) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  set(out, value_kind::number, std::string_view(buf, static_cast<size_t>(end - buf)));
}

void set_float(value& out, double d) {
  if (std::isnan(d)) return set(out, value_kind::string, "NaN");
  if (std::isinf(d)) return set(out, value_kind::string, d > 0 ? "Infinity" : "-Infinity");
  set_number(out, d);
}

std::optional<error> set_int(value& out, const avro_node& n, int64_t x) {
  switch (n.logical) {
    case avro_logical::date:
      set(out, value_kind::string, date_text(x));
      return std::nullopt;
    case avro_logical::time_millis:
    case avro_logical::time_micros: {
      auto t = time_text(x, n.logical == avro_logical::time_millis ? 1'000 : 1'000'000);
      if (!t) return make_error(error_code::wrong_type, "time out of range: " + std::to_string(x));
      set(out, value_kind::string, *t);
      return std::nullopt;
    }
    case avro_logical::timestamp_millis:
    case avro_logical::timestamp_micros:
      out.kind = value_kind::string;
      out.text.clear();
      append_timestamp_text(out.text, x,
                            n.logical == avro_logical::timestamp_millis ? 1'000 : 1'000'000);
      // PostgreSQL reads "... BCZ" as an error: before year 1 the zone goes before the era.
      if (out.text.ends_with(" BC")) {
        out.text.insert(out.text.size() - 3, "+00");
      } else {
        out.text.push_back('Z');
      }
      return std::nullopt;
    case avro_logical::local_timestamp_millis:
    case avro_logical::local_timestamp_micros:
      out.kind = value_kind::string;
      out.text.clear();
      append_timestamp_text(out.text, x,
                            n.logical == avro_logical::local_timestamp_millis ? 1'000 : 1'000'000);
      return std::nullopt;
    case avro_logical::time_interval_micros:
      set(out, value_kind::string, interval_text(x));
      return std::nullopt;
    default:
      set_number(out, x);
      return std::nullopt;
  }
}

// How deep a Datastream json value may nest (PostgreSQL's own bound is its stack).
constexpr size_t max_json_depth = 512;

std::optional<error> set_string(value& out, const avro_node& n, std::string_view s) {
  if (s.find('\0') != std::string_view::npos) {
    return make_error(error_code::nul_in_text, "text holds \\u0000, which PostgreSQL cannot store");
  }
  if (!simdjson::validate_utf8(s.data(), s.size())) {
    return make_error(error_code::wrong_type, "string is not valid UTF-8");
  }
  if (n.logical == avro_logical::number && is_json_number(s)) {
    set(out, value_kind::number, s);
  } else if (n.logical == avro_logical::json) {
    if (check_json_text(s, max_json_depth)) {
      return make_error(error_code::wrong_type, "json string is not JSON");
    }
    set(out, value_kind::json, s);
  } else {
    set(out, value_kind::string, s);
  }
  return std::nullopt;
}

// Datastream's DATETIME and INTERVAL records (unified types) as the text of one SQL value.
std::optional<error> logical_record(avro_binary_cursor& in, const avro_node& n, value& out) {
  int64_t parts[3] = {0, 0, 0};
  const size_t want = n.logical == avro_logical::datetime ? 2 : 3;
  if (n.fields.size() != want) return mismatch(n);
  for (size_t i = 0; i < want; ++i) {
    const avro_kind k = n.fields[i].type->kind;
    int32_t small = 0;
    if (k == avro_kind::int32) {
      if (!in.read_int(small)) return cut(n);
      parts[i] = small;
    } else if (k == avro_kind::int64) {
      if (!in.read_long(parts[i])) return cut(n);
    } else {
      return mismatch(n);
    }
  }
  if (n.logical == avro_logical::datetime) {
    auto time = time_text(parts[1], 1'000'000);
    if (!time) return make_error(error_code::wrong_type, "datetime time out of range");
    set(out, value_kind::string, date_text(parts[0]) + "T" + *time);
  } else {
    set(out, value_kind::string,
        std::to_string(parts[0]) + " mons " + std::to_string(parts[1]) + " hours " +
            std::to_string(parts[2]) + " microseconds");
  }
  return std::nullopt;
}

// A value that is not a union, record, array or map (or a logical record), uncharged: read()
// charges it. A free function with one caller, which the compiler inlines.
std::optional<error> scalar(avro_binary_cursor& in, const avro_node& n, value& out) {
  switch (n.kind) {
    case avro_kind::null:
      set(out, value_kind::null, {});
      return std::nullopt;
    case avro_kind::boolean: {
      bool b = false;
      if (!in.read_boolean(b)) return cut(n);
      set(out, value_kind::boolean, b ? "true" : "false");
      return std::nullopt;
    }
    case avro_kind::int32: {
      int32_t x = 0;
      if (!in.read_int(x)) return cut(n);
      return set_int(out, n, x);
    }
    case avro_kind::int64: {
      int64_t x = 0;
      if (!in.read_long(x)) return cut(n);
      return set_int(out, n, x);
    }
    case avro_kind::float32: {
      float x = 0;
      if (!in.read_floating(x)) return cut(n);
      if (!std::isfinite(x)) return set_float(out, x), std::nullopt;
      set_number(out, x);  // the float's own shortest text, not the double's
      return std::nullopt;
    }
    case avro_kind::float64: {
      double x = 0;
      if (!in.read_floating(x)) return cut(n);
      set_float(out, x);
      return std::nullopt;
    }
    case avro_kind::string: {
      std::string_view s;
      if (!in.read_bytes(s)) return cut(n);
      return set_string(out, n, s);
    }
    case avro_kind::bytes:
    case avro_kind::fixed: {
      std::string_view b;
      const bool ok = n.kind == avro_kind::bytes ? in.read_bytes(b)
                                                 : in.read_fixed(static_cast<size_t>(n.size), b);
      if (!ok) return cut(n);
      if (n.logical == avro_logical::decimal) {
        out.kind = value_kind::number;
        out.text.clear();
        if (!append_decimal_text(out.text, b, n.scale)) {
          return make_error(error_code::too_large, "decimal too large");
        }
      } else {
        set(out, value_kind::bytes, b);
      }
      return std::nullopt;
    }
    case avro_kind::enumeration: {
      int64_t index = 0;
      if (!in.read_long(index) || index < 0 || static_cast<uint64_t>(index) >= n.symbols.size()) {
        return mismatch(n);
      }
      set(out, value_kind::string, n.symbols[static_cast<size_t>(index)]);
      return std::nullopt;
    }
    case avro_kind::record:
      if (n.logical != avro_logical::none) return logical_record(in, n, out);
      break;
    case avro_kind::union_of:
    case avro_kind::array:
    case avro_kind::map:
      break;
  }
  return mismatch(n);
}

}  // namespace

error avro_failure(std::string_view what) {
  return make_error(error_code::invalid_avro, std::string(what) + ": " + avro_strerror());
}

std::optional<error> avro_value_reader::read(avro_binary_cursor& in, const avro_node& node,
                                             value& out) {
  return read(in, node, 0, out);
}

std::optional<error> avro_value_reader::read(avro_binary_cursor& in, const avro_node& n,
                                             size_t depth, value& out) {
  if (depth > _max_depth) return make_error(error_code::too_deep, "value nested too deep");
  switch (n.kind) {
    case avro_kind::union_of: {
      auto b = branch(in, n);
      if (!b) return b.err();
      return read(in, **b, depth + 1, out);
    }
    case avro_kind::record:
      if (n.logical != avro_logical::none) break;  // one scalar text
      [[fallthrough]];
    case avro_kind::array:
    case avro_kind::map:
      // The value itself (an empty record costs no input), then its text as it is written.
      if (!_budget.charge(decode_budget::value_units)) return _budget.exceeded();
      out.kind = value_kind::json;
      out.text.clear();
      return json(in, n, depth, out.text);
    default:
      break;
  }
  if (auto err = scalar(in, n, out)) return err;
  if (!_budget.charge_value(out.text.size())) return _budget.exceeded();
  return std::nullopt;
}

std::optional<error> avro_value_reader::skip(avro_binary_cursor& in, const avro_node& node) {
  return skip(in, node, 0);
}

// The structure only: every length, count, branch and index must fit, but the values of a
// field sluice does not use are not judged (a NUL in its text is not the event's fault).
std::optional<error> avro_value_reader::skip(avro_binary_cursor& in, const avro_node& n,
                                             size_t depth) {
  if (depth > _max_depth) return make_error(error_code::too_deep, "value nested too deep");
  // A step of work: items of a 0-byte type cost no input, and each block may claim them again.
  if (!_budget.charge(1)) return _budget.exceeded();
  std::string_view ignored;
  int64_t number = 0;
  bool flag = false;
  double real = 0;
  float small = 0;
  switch (n.kind) {
    case avro_kind::null:
      return std::nullopt;
    case avro_kind::boolean:
      return in.read_boolean(flag) ? std::nullopt : std::optional(cut(n));
    case avro_kind::int32:
    case avro_kind::int64:
      return in.read_long(number) ? std::nullopt : std::optional(cut(n));
    case avro_kind::float32:
      return in.read_floating(small) ? std::nullopt : std::optional(cut(n));
    case avro_kind::float64:
      return in.read_floating(real) ? std::nullopt : std::optional(cut(n));
    case avro_kind::string:
    case avro_kind::bytes:
      return in.read_bytes(ignored) ? std::nullopt : std::optional(cut(n));
    case avro_kind::fixed:
      return in.read_fixed(static_cast<size_t>(n.size), ignored) ? std::nullopt
                                                                 : std::optional(cut(n));
    case avro_kind::enumeration:
      if (!in.read_long(number) || number < 0 ||
          static_cast<uint64_t>(number) >= n.symbols.size()) {
        return mismatch(n);
      }
      return std::nullopt;
    case avro_kind::union_of: {
      auto b = branch(in, n);
      if (!b) return b.err();
      return skip(in, **b, depth + 1);
    }
    case avro_kind::record:
      for (const avro_node::field& f : n.fields) {
        if (auto err = skip(in, *f.type, depth + 1)) return err;
      }
      return std::nullopt;
    case avro_kind::array:
    case avro_kind::map:
      for (;;) {
        auto count = item_block(in);
        if (!count) return count.err();
        if (*count == 0) return std::nullopt;
        for (int64_t i = 0; i < *count; ++i) {
          if (n.kind == avro_kind::map && !in.read_bytes(ignored)) return cut(n);
          if (auto err = skip(in, *n.items, depth + 1)) return err;
        }
      }
  }
  return mismatch(n);
}

result<const avro_node*> avro_value_reader::branch(avro_binary_cursor& in, const avro_node& n) {
  if (n.kind != avro_kind::union_of) return &n;
  int64_t i = 0;
  if (!in.read_long(i) || i < 0 || static_cast<uint64_t>(i) >= n.branches.size()) {
    return make_error(error_code::invalid_avro, "union branch out of range");
  }
  return n.branches[static_cast<size_t>(i)];
}

result<int64_t> avro_value_reader::item_block(avro_binary_cursor& in) {
  int64_t count = 0;
  if (!in.read_long(count)) return make_error(error_code::invalid_avro, "item count cut short");
  if (count < 0) {  // a negative count is followed by the block's size in bytes
    int64_t size = 0;
    if (count == INT64_MIN || !in.read_long(size) || size < 0) {
      return make_error(error_code::invalid_avro, "bad item block");
    }
    count = -count;
  }
  // No bound on the count here: an item of a type that encodes to 0 bytes (null, an empty
  // record) costs no input, so the bytes left bound nothing, and each block may claim them
  // again. Every reader of the items charges each one to the message's budget instead.
  return count;
}

std::optional<error> avro_value_reader::json(avro_binary_cursor& in, const avro_node& n,
                                             size_t depth, std::string& out) {
  if (depth > _max_depth) return make_error(error_code::too_deep, "value nested too deep");
  if (n.kind == avro_kind::union_of) {
    auto b = branch(in, n);
    if (!b) return b.err();
    return json(in, **b, depth + 1, out);
  }
  // Charged as written: its text, each item's comma, each field's name and quotes.
  if (n.kind != avro_kind::record && n.kind != avro_kind::array && n.kind != avro_kind::map) {
    if (auto err = scalar(in, n, _scratch)) return err;
    const size_t at = out.size();
    append_json_value(out, _scratch);
    if (!_budget.charge(out.size() - at)) return _budget.exceeded();
    return std::nullopt;
  }
  if (!_budget.charge(2)) return _budget.exceeded();  // {} or []: an empty record is not free
  if (n.kind == avro_kind::record) {
    out.push_back('{');
    for (size_t i = 0; i < n.fields.size(); ++i) {
      // The name comes from the schema, not the input: each use of it is charged.
      if (!_budget.charge(n.fields[i].name.size() + 4)) return _budget.exceeded();
      if (i > 0) out.push_back(',');
      append_json_string(out, n.fields[i].name);
      out.push_back(':');
      if (auto err = json(in, *n.fields[i].type, depth + 1, out)) return err;
    }
    out.push_back('}');
    return std::nullopt;
  }
  const bool object = n.kind == avro_kind::map;
  out.push_back(object ? '{' : '[');
  bool first = true;
  for (;;) {
    auto count = item_block(in);
    if (!count) return count.err();
    if (*count == 0) break;
    for (int64_t i = 0; i < *count; ++i) {
      if (!_budget.charge(1)) return _budget.exceeded();
      if (!first) out.push_back(',');
      first = false;
      if (object) {
        std::string_view key;
        if (!in.read_bytes(key)) return cut(n);
        if (!_budget.charge(key.size() + 3)) return _budget.exceeded();
        // A map key is message data: JSON text (and PostgreSQL's json) needs it valid UTF-8.
        if (!simdjson::validate_utf8(key.data(), key.size())) {
          return make_error(error_code::wrong_type, "map key is not valid UTF-8");
        }
        append_json_string(out, key);
        out.push_back(':');
      }
      if (auto err = json(in, *n.items, depth + 1, out)) return err;
    }
  }
  out.push_back(object ? '}' : ']');
  return std::nullopt;
}

}  // namespace sluice
