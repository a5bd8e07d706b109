#include "schemas/debezium/debezium_value_decoder.h"

#include <cstdint>
#include <optional>

#include "schemas/common/json_value_reader.h"
#include "schemas/common/position_parser.h"
#include "schemas/common/same_text.h"
#include "schemas/debezium/connect_logical_types.h"

namespace sluice {
namespace {

// The unit of a logical type counting time, in parts per second; 0 when it is not one.
struct time_unit {
  std::string_view name;
  int64_t per_second;
  bool of_day;  // a time of day, else a timestamp
};

constexpr time_unit time_units[] = {
    {"io.debezium.time.Timestamp", 1'000, false},
    {"io.debezium.time.MicroTimestamp", 1'000'000, false},
    {"io.debezium.time.NanoTimestamp", 1'000'000'000, false},
    {"org.apache.kafka.connect.data.Timestamp", 1'000, false},
    {"io.debezium.time.Time", 1'000, true},
    {"io.debezium.time.MicroTime", 1'000'000, true},
    {"io.debezium.time.NanoTime", 1'000'000'000, true},
    {"org.apache.kafka.connect.data.Time", 1'000, true},
};

constexpr std::string_view decimal_type = "org.apache.kafka.connect.data.Decimal";
constexpr std::string_view variable_decimal_type = "io.debezium.data.VariableScaleDecimal";
constexpr std::string_view json_type_name = "io.debezium.data.Json";
// How deep a Json column's document may nest (PostgreSQL's own bound is its stack).
constexpr size_t max_json_depth = 512;
constexpr std::string_view bits_type = "io.debezium.data.Bits";
constexpr std::string_view micro_duration_type = "io.debezium.time.MicroDuration";

bool is_date(std::string_view name) {
  return name == "io.debezium.time.Date" || name == "org.apache.kafka.connect.data.Date";
}

error wrong(std::string_view logical, std::string_view what, const json_token& t) {
  std::string got(t.text.substr(0, 40));
  if (t.text.size() > 40) got += "...";
  return make_error(error_code::wrong_type,
                    std::string(logical) + " must be " + std::string(what) + ", got " + got);
}

std::optional<int64_t> integer_of(const json_token& t) {
  if (t.kind != json_kind::number) return std::nullopt;
  return parse_integer(t.text);
}

// Connect bytes: base64 decoded once, into the value's own buffer.
std::optional<error> assign_bytes(value& out, const json_token& t) {
  if (t.kind != json_kind::string || !decode_base64(t.text, out.text)) {
    return wrong("bytes", "base64 text", t);
  }
  out.kind = value_kind::bytes;
  return std::nullopt;
}

}  // namespace

value plain_value(const json_token& token) {
  return to_value(token);
}

void assign_plain_value(value& out, const json_token& token) {
  if (token.kind == json_kind::boolean) {
    assign_value(out, value_kind::boolean, token.text == "true" ? "true" : "false");
  } else {
    assign_value(out, value_kind_of(token.kind), token.text);
  }
}

debezium_value_decoder::debezium_value_decoder(std::string unavailable_value)
    : _unavailable(std::move(unavailable_value)),
      _unavailable_base64(encode_base64(_unavailable)) {}

result<bool> debezium_value_decoder::decode_row(const debezium_envelope& e,
                                                const debezium_envelope::row& row,
                                                std::string_view where, image& out,
                                                decode_budget& budget) {
  bool partial = false;
  image_writer columns(out);
  for (size_t i = 0; i < row.columns.size(); ++i) {
    const debezium_envelope::field& column = row.columns[i];
    const connect_field_schema* schema = e.schema_of(column.name, i);
    const auto failed = [&](error err) {
      return in_context(std::string(where) + " column \"" + std::string(column.name) + "\"",
                        std::move(err));
    };
    column_value* c = nullptr;
    if (!unavailable(e, column) && column.token.kind != json_kind::null &&
        (!schema || schema->name.empty())) {
      // A plain value (the common case): written in place, reusing the column's strings.
      c = &columns.next();
      if (!same_text(c->name, column.name))
        c->name.assign(column.name);  // recycled images repeat names
      if (schema && schema->type == "bytes") {
        if (auto err = assign_bytes(c->v, column.token)) return failed(std::move(*err));
      } else {
        assign_plain_value(c->v, column.token);
      }
    } else {
      auto v = decode(e, column, schema);
      if (!v) return failed(v.err());
      if (v->is_absent()) {
        partial = true;
        continue;
      }
      c = &columns.next();
      c->name.assign(column.name);
      c->v = std::move(*v);
    }
    // The text, not the name: names come from the schema (one change a message, at most
    // limits.max.columns of them), and a wide, sparse row must not be refused for them.
    if (!budget.charge_value(c->v.text.size())) return failed(budget.exceeded());
  }
  columns.finish();
  return partial;
}

result<value> debezium_value_decoder::decode(const debezium_envelope& e,
                                             const debezium_envelope::field& column,
                                             const connect_field_schema* schema) {
  if (unavailable(e, column)) return value::absent();
  if (column.token.kind == json_kind::null) return value::null();
  if (schema && schema->name.empty() && schema->type == "bytes") {
    value v;
    if (auto err = assign_bytes(v, column.token)) return std::move(*err);
    return v;
  }
  if (!schema || schema->name.empty()) return plain_value(column.token);
  return logical(e, column, *schema);
}

bool debezium_value_decoder::unavailable(const debezium_envelope& e,
                                         const debezium_envelope::field& column) const {
  const json_token& t = column.token;
  const auto is_placeholder = [this](const json_token& s) {
    return s.kind == json_kind::string && (s.text == _unavailable || s.text == _unavailable_base64);
  };
  if (t.kind == json_kind::string) return is_placeholder(t);
  if (t.kind != json_kind::array) return false;
  for (const json_leaf& leaf : e.leaves_of(column)) {
    if (is_placeholder(leaf.token)) return true;
  }
  return false;
}

result<value> debezium_value_decoder::logical(const debezium_envelope& e,
                                              const debezium_envelope::field& column,
                                              const connect_field_schema& schema) {
  const json_token& t = column.token;
  const std::string_view name = schema.name;
  if (name == decimal_type) {
    if (t.kind != json_kind::string) return wrong(name, "base64 text", t);
    return decimal(t.text, schema.scale);
  }
  if (name == variable_decimal_type) {
    if (t.kind != json_kind::object) return wrong(name, "an object {scale, value}", t);
    std::optional<int64_t> scale;
    std::optional<std::string_view> unscaled;
    for (const json_leaf& leaf : e.leaves_of(column)) {
      if (leaf.name == "scale") scale = integer_of(leaf.token);
      if (leaf.name == "value" && leaf.token.kind == json_kind::string) unscaled = leaf.token.text;
    }
    if (!scale || !unscaled || *scale < -max_decimal_scale || *scale > max_decimal_scale) {
      return wrong(name, "an object {scale: integer, value: base64 text}", t);
    }
    return decimal(*unscaled, static_cast<int32_t>(*scale));
  }
  if (is_date(name)) {
    const auto days = integer_of(t);
    if (!days || *days < INT32_MIN || *days > INT32_MAX) return wrong(name, "a day count", t);
    return value::string(date_text(*days));
  }
  for (const time_unit& unit : time_units) {
    if (name != unit.name) continue;
    const auto count = integer_of(t);
    if (!count) return wrong(name, "an integer", t);
    if (!unit.of_day) return value::string(timestamp_text(*count, unit.per_second));
    auto text = time_text(*count, unit.per_second);
    if (!text) return wrong(name, "a time of day", t);
    return value::string(*text);
  }
  if (name == bits_type) {
    if (t.kind != json_kind::string || !decode_base64(t.text, _bytes)) {
      return wrong(name, "base64 text", t);
    }
    // A varbit's length is its maximum, and Debezium drops its leading zeros: its value
    // starts at the highest set bit. A bit(n) value is exactly n bits.
    const bool varying = schema.source_type == "VARBIT";
    std::string text;
    if (!bits_text(_bytes, varying ? std::nullopt : schema.length, text)) {
      return wrong(name, "bits within parameters.length", t);
    }
    return value::string(text);
  }
  if (name == micro_duration_type) {
    const auto micros = integer_of(t);
    if (!micros) return wrong(name, "an integer", t);
    return value::string(interval_text(*micros));
  }
  if (name == json_type_name) {
    if (t.kind != json_kind::string) return wrong(name, "JSON text in a string", t);
    // Written into jsonb as it is: text that is not JSON would fail the whole batch there.
    if (check_json_text(t.text, max_json_depth)) return wrong(name, "JSON text in a string", t);
    return value::json(t.text);
  }
  return plain_value(t);
}

result<value> debezium_value_decoder::decimal(std::string_view base64,
                                              std::optional<int32_t> scale) {
  if (!scale) {
    return make_error(error_code::wrong_type,
                      std::string(decimal_type) + " schema without parameters.scale");
  }
  if (base64.size() > (max_decimal_bytes + 2) / 3 * 4) {
    return make_error(error_code::too_large,
                      "decimal of more than " + std::to_string(max_decimal_bytes) + " bytes");
  }
  if (!decode_base64(base64, _bytes)) {
    return make_error(error_code::wrong_type,
                      "decimal bytes are not base64: " + std::string(base64.substr(0, 40)));
  }
  auto text = decimal_text(_bytes, *scale);
  if (!text) {
    return make_error(error_code::too_large,
                      "decimal scale " + std::to_string(*scale) + " is out of range");
  }
  return value::number(*text);
}

}  // namespace sluice
