#include "schemas/avro/avro_values.h"

#include <charconv>
#include <cmath>

#include <simdjson.h>

#include "core/model/json_text.h"
#include "schemas/common/json_value_reader.h"
#include "schemas/debezium/connect_logical_types.h"

namespace sluice {
namespace {

// The Avro C value macros take a non-const pointer; reading never modifies the value.
avro_value_t* mut(const avro_value_t& v) {
  return const_cast<avro_value_t*>(&v);
}

error mismatch(const avro_node& node) {
  return make_error(error_code::invalid_avro, "record does not match its schema (type " +
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
      set(out, value_kind::string,
          timestamp_text(x, n.logical == avro_logical::timestamp_millis ? 1'000 : 1'000'000));
      // PostgreSQL reads "... BCZ" as an error: before year 1 the zone goes before the era.
      if (out.text.ends_with(" BC")) {
        out.text.insert(out.text.size() - 3, "+00");
      } else {
        out.text.push_back('Z');
      }
      return std::nullopt;
    case avro_logical::local_timestamp_millis:
    case avro_logical::local_timestamp_micros:
      set(out, value_kind::string,
          timestamp_text(x, n.logical == avro_logical::local_timestamp_millis ? 1'000 : 1'000'000));
      return std::nullopt;
    case avro_logical::time_interval_micros:
      set(out, value_kind::string, interval_text(x));
      return std::nullopt;
    default:
      set_number(out, x);
      return std::nullopt;
  }
}

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
    thread_local simdjson::dom::parser parser;
    simdjson::dom::element ignored;
    if (parser.parse(s.data(), s.size()).get(ignored)) {
      return make_error(error_code::wrong_type, "json string is not JSON");
    }
    set(out, value_kind::json, s);
  } else {
    set(out, value_kind::string, s);
  }
  return std::nullopt;
}

}  // namespace

error avro_failure(std::string_view what) {
  return make_error(error_code::invalid_avro, std::string(what) + ": " + avro_strerror());
}

std::optional<error> avro_value_reader::read(const avro_value_t& v, const avro_node& node,
                                             value& out) {
  return read(v, node, 0, out);
}

std::optional<error> avro_value_reader::read(const avro_value_t& v, const avro_node& n,
                                             size_t depth, value& out) {
  if (depth > _max_depth) return make_error(error_code::too_deep, "value nested too deep");
  switch (n.kind) {
    case avro_kind::null:
      set(out, value_kind::null, {});
      return std::nullopt;
    case avro_kind::boolean: {
      int b = 0;
      if (avro_value_get_boolean(mut(v), &b)) return mismatch(n);
      set(out, value_kind::boolean, b ? "true" : "false");
      return std::nullopt;
    }
    case avro_kind::int32: {
      int32_t x = 0;
      if (avro_value_get_int(mut(v), &x)) return mismatch(n);
      return set_int(out, n, x);
    }
    case avro_kind::int64: {
      int64_t x = 0;
      if (avro_value_get_long(mut(v), &x)) return mismatch(n);
      return set_int(out, n, x);
    }
    case avro_kind::float32: {
      float x = 0;
      if (avro_value_get_float(mut(v), &x)) return mismatch(n);
      if (!std::isfinite(x)) return set_float(out, x), std::nullopt;
      set_number(out, x);  // the float's own shortest text, not the double's
      return std::nullopt;
    }
    case avro_kind::float64: {
      double x = 0;
      if (avro_value_get_double(mut(v), &x)) return mismatch(n);
      set_float(out, x);
      return std::nullopt;
    }
    case avro_kind::string: {
      const char* p = nullptr;
      size_t size = 0;  // counts the NUL terminator Avro C adds
      if (avro_value_get_string(mut(v), &p, &size)) return mismatch(n);
      return set_string(out, n, std::string_view(p, size > 0 ? size - 1 : 0));
    }
    case avro_kind::bytes:
    case avro_kind::fixed: {
      const void* p = nullptr;
      size_t size = 0;
      const int rc = n.kind == avro_kind::bytes ? avro_value_get_bytes(mut(v), &p, &size)
                                                : avro_value_get_fixed(mut(v), &p, &size);
      if (rc) return mismatch(n);
      const std::string_view b(static_cast<const char*>(p), size);
      if (n.logical == avro_logical::decimal) {
        auto text = decimal_text(b, n.scale);
        if (!text) return make_error(error_code::too_large, "decimal too large");
        set(out, value_kind::number, *text);
      } else {
        set(out, value_kind::bytes, b);
      }
      return std::nullopt;
    }
    case avro_kind::enumeration: {
      int index = 0;
      if (avro_value_get_enum(mut(v), &index)) return mismatch(n);
      if (index < 0 || static_cast<size_t>(index) >= n.symbols.size()) return mismatch(n);
      set(out, value_kind::string, n.symbols[static_cast<size_t>(index)]);
      return std::nullopt;
    }
    case avro_kind::union_of: {
      int d = 0;
      avro_value_t branch;
      if (avro_value_get_discriminant(mut(v), &d) || d < 0 ||
          static_cast<size_t>(d) >= n.branches.size() ||
          avro_value_get_current_branch(mut(v), &branch)) {
        return mismatch(n);
      }
      return read(branch, *n.branches[static_cast<size_t>(d)], depth + 1, out);
    }
    case avro_kind::record:
      if (n.logical != avro_logical::none) return logical_record(v, n, out);
      [[fallthrough]];
    case avro_kind::array:
    case avro_kind::map:
      out.kind = value_kind::json;
      out.text.clear();
      return json(v, n, depth, out.text);
  }
  return mismatch(n);
}

// Datastream's DATETIME and INTERVAL records (unified types) as the text of one SQL value.
std::optional<error> avro_value_reader::logical_record(const avro_value_t& v, const avro_node& n,
                                                       value& out) {
  int64_t parts[3] = {0, 0, 0};
  const size_t want = n.logical == avro_logical::datetime ? 2 : 3;
  size_t count = 0;
  if (n.fields.size() != want || avro_value_get_size(mut(v), &count) || count != want) {
    return mismatch(n);
  }
  for (size_t i = 0; i < want; ++i) {
    avro_value_t f;
    if (avro_value_get_by_index(mut(v), i, &f, nullptr)) return mismatch(n);
    const avro_kind k = n.fields[i].type->kind;
    int32_t small = 0;
    if (k == avro_kind::int32 && !avro_value_get_int(&f, &small)) {
      parts[i] = small;
    } else if (k != avro_kind::int64 || avro_value_get_long(&f, &parts[i])) {
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

std::optional<error> avro_value_reader::json(const avro_value_t& v, const avro_node& n,
                                             size_t depth, std::string& out) {
  if (depth > _max_depth) return make_error(error_code::too_deep, "value nested too deep");
  if (n.kind == avro_kind::union_of) {
    int d = 0;
    avro_value_t branch;
    if (avro_value_get_discriminant(mut(v), &d) || d < 0 ||
        static_cast<size_t>(d) >= n.branches.size() ||
        avro_value_get_current_branch(mut(v), &branch)) {
      return mismatch(n);
    }
    return json(branch, *n.branches[static_cast<size_t>(d)], depth + 1, out);
  }
  if (n.kind != avro_kind::record && n.kind != avro_kind::array && n.kind != avro_kind::map) {
    if (auto err = read(v, n, depth, _scratch)) return err;
    append_json_value(out, _scratch);
    return std::nullopt;
  }
  size_t size = 0;
  if (avro_value_get_size(mut(v), &size)) return mismatch(n);
  if (n.kind == avro_kind::record && size != n.fields.size()) return mismatch(n);
  const bool object = n.kind != avro_kind::array;
  out.push_back(object ? '{' : '[');
  for (size_t i = 0; i < size; ++i) {
    avro_value_t child;
    const char* name = nullptr;
    if (avro_value_get_by_index(mut(v), i, &child, &name)) return mismatch(n);
    if (i > 0) out.push_back(',');
    if (object) {
      const std::string_view key = n.kind == avro_kind::record ? std::string_view(n.fields[i].name)
                                                               : std::string_view(name ? name : "");
      // A map key is message data: JSON text (and PostgreSQL's json) needs it valid UTF-8.
      if (!simdjson::validate_utf8(key.data(), key.size())) {
        return make_error(error_code::wrong_type, "map key is not valid UTF-8");
      }
      append_json_string(out, key);
      out.push_back(':');
    }
    const avro_node& type = n.kind == avro_kind::record ? *n.fields[i].type : *n.items;
    if (auto err = json(child, type, depth + 1, out)) return err;
  }
  out.push_back(object ? '}' : ']');
  return std::nullopt;
}

}  // namespace sluice
