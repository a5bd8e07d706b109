#include "schemas/datastream/datastream_event.h"

#include <cstring>
#include <string>

#include "schemas/common/duplicate_names.h"

namespace sluice {
namespace {

using simdjson::ondemand::json_type;

std::string in_quotes(std::string_view name) {
  return "\"" + std::string(name) + "\"";
}

}  // namespace

void datastream_event::clear() {
  envelope.clear();
  metadata.clear();
  leaves.clear();
  // payload is not cleared: read_payload() overwrites it in place (see image_writer).
  has_metadata = false;
  has_payload = false;
}

const datastream_event::field* datastream_event::find(const std::vector<field>& fields,
                                                      std::string_view name) {
  for (const field& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::optional<error> datastream_event_reader::read(simdjson::ondemand::document& doc,
                                                   std::string_view document,
                                                   datastream_event& out) {
  _values.begin_document(document);
  out.clear();
  simdjson::ondemand::object root;
  if (auto code = doc.get_object().get(root)) {
    if (code == simdjson::INCORRECT_TYPE) {
      return make_error(error_code::wrong_type, "a Datastream event is a JSON object");
    }
    return json_error(code);  // the root as a whole: no useful byte offset
  }
  for (auto member : root) {
    simdjson::ondemand::field field;
    if (auto code = std::move(member).get(field)) return _values.fail(code, doc);
    std::string_view key;
    if (auto code = field.unescaped_key().get(key)) return _values.fail(code, doc);
    simdjson::ondemand::value v = field.value();
    if (key == "payload") {
      if (out.has_payload) return make_error(error_code::invalid_json, "duplicate payload");
      out.has_payload = true;
      if (auto err = read_payload(v, out)) return err;
    } else if (key == "source_metadata") {
      if (out.has_metadata) {
        return make_error(error_code::invalid_json, "duplicate source_metadata");
      }
      out.has_metadata = true;
      if (auto err = read_fields(v, out)) return err;
    } else if (auto err = read_field("", key, v, out.envelope, out)) {
      return err;
    }
  }
  if (!out.has_payload) out.payload.clear();
  // A complete root object followed by anything but whitespace is not one JSON document.
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == simdjson::SUCCESS) {
    return make_error(error_code::invalid_json, "invalid JSON: content after the event (at byte " +
                                                    std::to_string(rest - document.data()) + ")");
  }
  _names.clear();
  for (const auto& f : out.envelope)
    _names.push_back(f.name);
  if (auto err = check_unique("event")) return err;
  _names.clear();
  for (const auto& f : out.metadata)
    _names.push_back(f.name);
  if (auto err = check_unique("source_metadata")) return err;
  _names.clear();
  for (const auto& c : out.payload)
    _names.push_back(c.name);
  return check_unique("payload");
}

std::optional<error> datastream_event_reader::read_payload(simdjson::ondemand::value v,
                                                           datastream_event& out) {
  json_type type;
  if (auto code = v.type().get(type)) return _values.fail(code, v);
  if (type != json_type::object) {
    return make_error(error_code::wrong_type, "payload must be a JSON object");
  }
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return _values.fail(code, v);
  // The payload is written over the columns the previous message left (their strings keep
  // their capacity); on error it is left half-written, and the decoder does not use it.
  image_writer columns(out.payload);
  for (auto member : object) {
    simdjson::ondemand::field field;
    if (auto code = std::move(member).get(field)) return _values.fail(code, v);
    std::string_view name;
    if (auto code = field.unescaped_key().get(name)) return _values.fail(code, v);
    if (_values.has_nul(name)) {
      return make_error(error_code::nul_in_text, "payload column name contains \\u0000");
    }
    if (columns.size() >= _max_columns) {
      return make_error(error_code::too_many_columns,
                        "payload has more than " + std::to_string(_max_columns) + " columns");
    }
    column_value& column = columns.next();
    column.name.assign(name);
    if (auto err = _values.read_value(field.value(), column.v)) {
      return in_context("payload column " + in_quotes(name), std::move(*err));
    }
  }
  columns.finish();
  return std::nullopt;
}

std::optional<error> datastream_event_reader::read_fields(simdjson::ondemand::value v,
                                                          datastream_event& out) {
  json_type type;
  if (auto code = v.type().get(type)) return _values.fail(code, v);
  if (type != json_type::object) {
    return make_error(error_code::wrong_type, "source_metadata must be a JSON object");
  }
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return _values.fail(code, v);
  for (auto member : object) {
    simdjson::ondemand::field field;
    if (auto code = std::move(member).get(field)) return _values.fail(code, v);
    std::string_view key;
    if (auto code = field.unescaped_key().get(key)) return _values.fail(code, v);
    if (auto err = read_field("source_metadata.", key, field.value(), out.metadata, out))
      return err;
  }
  return std::nullopt;
}

std::optional<error> datastream_event_reader::read_field(std::string_view prefix,
                                                         std::string_view name,
                                                         simdjson::ondemand::value v,
                                                         std::vector<datastream_event::field>& into,
                                                         datastream_event& out) {
  const size_t first = out.leaves.size();
  auto token = _values.read(v, &out.leaves);
  if (!token) return in_context(std::string(prefix) + std::string(name), token.err());
  into.push_back(datastream_event::field{name, *token, static_cast<uint32_t>(first),
                                         static_cast<uint32_t>(out.leaves.size() - first)});
  return std::nullopt;
}

std::optional<error> datastream_event_reader::check_unique(std::string_view where) {
  const auto dup = find_duplicate_name(_names);
  if (!dup) return std::nullopt;
  return make_error(error_code::invalid_json,
                    std::string(where) + " names " + in_quotes(*dup) + " twice");
}

}  // namespace sluice
