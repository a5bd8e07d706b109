// The Connect schema block of a Debezium JSON envelope ({"schema": …, "payload": …}): the
// envelope's own schema, then each image's field schemas with their logical types and
// parameters. The rest of the envelope reader is in debezium_envelope.cc.
#include "schemas/debezium/debezium_envelope.h"

#include <limits>
#include <string>

#include "schemas/common/json_text.h"
#include "schemas/common/position_parser.h"

namespace sluice {
namespace {

using simdjson::ondemand::json_type;

// A parameter holding an int32: Connect writes parameters as strings ("2"); numbers are
// accepted too.
std::optional<int32_t> int32_parameter(const json_token& token) {
  const auto v = token.is_scalar() ? parse_integer(token.text) : std::optional<int64_t>{};
  if (!v || *v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(*v);
}

}  // namespace

std::optional<error> debezium_envelope_reader::read_envelope_schema(simdjson::ondemand::value& v,
                                                                    std::string_view document,
                                                                    debezium_envelope& out) {
  json_type type;
  if (auto code = v.type().get(type)) return _values.fail(code, v);
  if (type != json_type::object) return read_schema(v, true, out);  // null, or the error
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return _values.fail(code, v);
  // The block's bytes, walked by structure only: they are checked below when not known.
  std::string_view bytes;
  if (auto code = object.raw_json().get(bytes)) return _values.fail(code, v);
  if (const std::vector<connect_field_schema>* known = _schemas.find(bytes)) {
    out.columns_schema.assign(known->begin(), known->end());
    return std::nullopt;
  }
  // Not seen: validate and read it as a document of its own (its error offsets count from
  // the block's first byte), then back to the message.
  const simdjson::padded_string_view copy = _schema_copy.assign(bytes);
  _values.begin_document(std::string_view(copy.data(), bytes.size()));
  std::optional<error> err;
  simdjson::ondemand::document block;
  simdjson::ondemand::value root;
  if (auto code = _schema_parser.iterate(copy).get(block)) {
    err = json_error(code);
  } else if (auto code = block.get_value().get(root)) {
    err = _values.fail(code, block);
  } else {
    err = read_schema(root, true, out);
  }
  _values.begin_document(document);
  if (err) return err;
  const std::vector<connect_field_schema>& kept = _schemas.insert(bytes, out.columns_schema);
  out.columns_schema.assign(kept.begin(), kept.end());
  return std::nullopt;
}

std::optional<error> debezium_envelope_reader::read_schema(simdjson::ondemand::value& v,
                                                           bool envelope, debezium_envelope& out) {
  json_type type;
  if (auto code = v.type().get(type)) return _values.fail(code, v);
  if (type == json_type::null) return _values.skip(v);
  if (type != json_type::object) {
    return make_error(error_code::wrong_type, "must be a JSON object or null");
  }
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return _values.fail(code, v);
  for (auto member : object) {
    if (auto code = member.error()) return _values.fail(code, v);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view key;
    if (auto code = plain_key(field, key)) return _values.fail(code, v);
    simdjson::ondemand::value& child = field.value();
    if (key != "fields") {
      if (auto err = _values.skip(child)) return in_context(key, std::move(*err));
      continue;
    }
    if (!envelope) {
      if (auto err = read_schema_fields(child, out.columns_schema)) return err;
      continue;
    }
    // The envelope's fields are before, after, source, op…: keep the image's columns.
    simdjson::ondemand::array entries;
    if (auto code = child.get_array().get(entries)) {
      if (code == simdjson::INCORRECT_TYPE) {
        return make_error(error_code::wrong_type, "fields must be an array");
      }
      return _values.fail(code, child);
    }
    bool have_after = false;
    for (auto element : entries) {
      if (auto code = element.error()) return _values.fail(code, child);
      simdjson::ondemand::value& entry = element.value_unsafe();
      connect_field_schema s;
      _nested.clear();
      if (auto err = read_field_schema(entry, s, &_nested)) return err;
      if (s.field == "after" || (s.field == "before" && !have_after)) {
        out.columns_schema.swap(_nested);
        have_after = have_after || s.field == "after";
      }
    }
  }
  return std::nullopt;
}

std::optional<error> debezium_envelope_reader::read_schema_fields(
    simdjson::ondemand::value& v, std::vector<connect_field_schema>& into) {
  simdjson::ondemand::array entries;
  if (auto code = v.get_array().get(entries)) {
    if (code == simdjson::INCORRECT_TYPE) {
      return make_error(error_code::wrong_type, "fields must be an array");
    }
    return _values.fail(code, v);
  }
  for (auto element : entries) {
    if (auto code = element.error()) return _values.fail(code, v);
    simdjson::ondemand::value& entry = element.value_unsafe();
    if (into.size() >= _max_columns) {
      return make_error(error_code::too_many_columns,
                        "schema has more than " + std::to_string(_max_columns) + " fields");
    }
    connect_field_schema s;
    if (auto err = read_field_schema(entry, s, nullptr)) return err;
    into.push_back(s);
  }
  return std::nullopt;
}

std::optional<error> debezium_envelope_reader::read_field_schema(
    simdjson::ondemand::value& v, connect_field_schema& out,
    std::vector<connect_field_schema>* nested) {
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) {
    if (code == simdjson::INCORRECT_TYPE) {
      return make_error(error_code::wrong_type, "a schema field must be a JSON object");
    }
    return _values.fail(code, v);
  }
  for (auto member : object) {
    if (auto code = member.error()) return _values.fail(code, v);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view key;
    if (auto code = plain_key(field, key)) return _values.fail(code, v);
    simdjson::ondemand::value& child = field.value();
    if (key == "field" || key == "type" || key == "name") {
      auto token = _values.read(child);
      if (!token) return in_context(key, token.err());
      if (token->kind != json_kind::string && token->kind != json_kind::null) {
        return make_error(error_code::wrong_type,
                          "schema field member " + std::string(key) + " must be a string");
      }
      (key == "field" ? out.field : key == "type" ? out.type : out.name) = token->text;
    } else if (key == "fields" && nested) {
      if (auto err = read_schema_fields(child, *nested)) return err;
    } else if (key == "parameters") {
      if (auto err = read_parameters(child, out)) return in_context("parameters", std::move(*err));
    } else if (key == "items" && out.items_type.empty()) {
      connect_field_schema element;
      if (auto err = read_field_schema(child, element, nullptr)) {
        return in_context("items", std::move(*err));
      }
      out.items_type = element.type;
      out.items_name = element.name;
    } else if (auto err = _values.skip(child)) {
      return in_context(key, std::move(*err));
    }
  }
  return std::nullopt;
}

std::optional<error> debezium_envelope_reader::read_parameters(simdjson::ondemand::value& v,
                                                               connect_field_schema& out) {
  json_type type;
  if (auto code = v.type().get(type)) return _values.fail(code, v);
  if (type != json_type::object) return _values.skip(v);
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return _values.fail(code, v);
  for (auto member : object) {
    if (auto code = member.error()) return _values.fail(code, v);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view key;
    if (auto code = plain_key(field, key)) return _values.fail(code, v);
    auto token = _values.read(field.value());
    if (!token) return in_context(key, token.err());
    if (key == "scale") {
      // The Decimal's scale decides its value: a wrong one is an error.
      out.scale = int32_parameter(*token);
      if (!out.scale) {
        return make_error(error_code::wrong_type,
                          "scale is not an integer: " + std::string(token->text.substr(0, 40)));
      }
    } else if (key == "connect.decimal.precision") {  // the others only inform the type
      out.precision = int32_parameter(*token);
    } else if (key == "length") {
      out.length = int32_parameter(*token);
    } else if (key == "__debezium.source.column.type") {
      if (token->kind == json_kind::string) out.source_type = token->text;
    } else if (key == "__debezium.source.column.length") {
      out.source_length = int32_parameter(*token);
    } else if (key == "__debezium.source.column.scale") {
      out.source_scale = int32_parameter(*token);
    }
  }
  return std::nullopt;
}

}  // namespace sluice
