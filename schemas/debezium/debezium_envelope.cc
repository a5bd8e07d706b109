#include "schemas/debezium/debezium_envelope.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "schemas/common/duplicate_names.h"
#include "schemas/common/json_text.h"
#include "schemas/common/position_parser.h"
#include "schemas/common/same_text.h"

namespace sluice {
namespace {

using simdjson::ondemand::json_type;

// Envelopes and `source` blocks carry a dozen or two members; images have their own bound.
constexpr size_t max_source_members = 256;

std::string in_quotes(std::string_view name) {
  return "\"" + std::string(name) + "\"";
}

error nul_in_name(std::string_view where) {
  return make_error(error_code::nul_in_text, std::string(where) + " name contains \\u0000");
}

}  // namespace

void debezium_envelope::clear() {
  top.clear();
  source.clear();
  before.present = false;
  before.columns.clear();
  after.present = false;
  after.columns.clear();
  leaves.clear();
  columns_schema.clear();
  wrapped = false;
  null_payload = false;
  has_source = false;
}

const debezium_envelope::field* debezium_envelope::find(const std::vector<field>& fields,
                                                        std::string_view name) {
  for (const field& f : fields) {
    if (same_text(f.name, name)) {
      return &f;
    }
  }
  return nullptr;
}

const connect_field_schema* debezium_envelope::schema_of(std::string_view column,
                                                         size_t hint) const {
  if (hint < columns_schema.size() && columns_schema[hint].field == column) {
    return &columns_schema[hint];
  }
  for (const connect_field_schema& s : columns_schema) {
    if (s.field == column) return &s;
  }
  return nullptr;
}

elided_schema debezium_envelope_reader::known_schema(std::string_view message) {
  constexpr std::string_view opening = R"({"schema":)";
  elided_schema e;
  if (!_schema_wrapper || !message.starts_with(opening)) return e;
  size_t length = 0;
  const std::vector<connect_field_schema>* columns =
      _schemas.find_prefix(message.substr(opening.size()), length);
  // The cached bytes are a whole validated object: equal bytes end where it ends. A comma
  // and the opening quote of a next member must follow, so that the document left is the
  // wrapper's other members and fails, if it does, as the whole message would: without the
  // quote, `{"schema":{..},}` would become the valid `{}`.
  const size_t comma = opening.size() + length;
  if (!columns || comma >= message.size() || message[comma] != ',') return e;
  const size_t next = message.find_first_not_of(" \t\n\r", comma + 1);
  if (next == std::string_view::npos || message[next] != '"') return e;
  e.columns = columns;
  e.at = 1;
  e.bytes = opening.size() - 1 + length + 1;  // "schema":<block>,
  return e;
}

std::optional<error> debezium_envelope_reader::read(simdjson::ondemand::document& doc,
                                                    std::string_view document,
                                                    debezium_envelope& out,
                                                    const elided_schema& elided) {
  _values.begin_document(document, elided.at, elided.bytes);
  out.clear();
  simdjson::ondemand::object root;
  if (auto code = doc.get_object().get(root)) {
    if (code == simdjson::INCORRECT_TYPE) {
      return make_error(error_code::wrong_type, "a change record is a JSON object");
    }
    return json_error(code);  // the root as a whole: no useful byte offset
  }
  bool seen_schema = elided.columns != nullptr;
  if (elided.columns) out.columns_schema.assign(elided.columns->begin(), elided.columns->end());
  for (auto member : root) {
    if (auto code = member.error()) return _values.fail(code, doc);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view key;
    if (auto code = plain_key(field, key)) return _values.fail(code, doc);
    simdjson::ondemand::value& v = field.value();
    if (_schema_wrapper && key == "schema") {
      if (seen_schema) return make_error(error_code::invalid_json, "duplicate schema");
      seen_schema = true;
      if (auto err = read_envelope_schema(v, document, out)) {
        return in_context("schema", std::move(*err));
      }
    } else if (_schema_wrapper && key == "payload") {
      if (out.wrapped) return make_error(error_code::invalid_json, "duplicate payload");
      out.wrapped = true;
      json_type type;
      if (auto code = v.type().get(type)) return _values.fail(code, v);
      if (type == json_type::null) {
        if (auto err = _values.skip(v)) return in_context("payload", std::move(*err));
        out.null_payload = true;
        continue;
      }
      if (type != json_type::object) {
        return make_error(error_code::wrong_type, "payload must be a JSON object or null");
      }
      simdjson::ondemand::object payload;
      if (auto code = v.get_object().get(payload)) return _values.fail(code, v);
      for (auto inner : payload) {
        if (auto code = inner.error()) return _values.fail(code, v);
        simdjson::ondemand::field& f = inner.value_unsafe();
        std::string_view name;
        if (auto code = plain_key(f, name)) return _values.fail(code, v);
        if (auto err = read_member(name, f.value(), out)) return err;
      }
    } else if (auto err = read_member(key, v, out)) {
      return err;
    }
  }
  if (auto err = at_end(doc, document)) return err;
  if (auto err = check_unique(out.top, "record", _unique_top)) return err;
  if (auto err = check_unique(out.source, "source", _unique_source)) return err;
  if (auto err = check_unique(out.before.columns, "before", _unique_before)) return err;
  return check_unique(out.after.columns, "after", _unique_after);
}

std::optional<error> debezium_envelope_reader::read_key(simdjson::ondemand::document& doc,
                                                        std::string_view document,
                                                        debezium_envelope& out) {
  _values.begin_document(document);
  out.clear();
  json_type root_type;
  if (auto code = doc.type().get(root_type)) return json_error(code);
  if (root_type == json_type::null) {
    bool is_null = false;
    if (auto code = doc.is_null().get(is_null)) return json_error(code);
    if (!is_null) return make_error(error_code::invalid_json, "invalid JSON: bad literal");
    return at_end(doc, document);  // a JSON null key: no key
  }
  if (root_type != json_type::object) {
    return make_error(error_code::wrong_type, "not a JSON object naming the key columns");
  }
  simdjson::ondemand::object root;
  if (auto code = doc.get_object().get(root)) return json_error(code);
  bool seen_schema = false;
  bool seen_payload = false;
  bool seen_plain = false;
  for (auto member : root) {
    if (auto code = member.error()) return _values.fail(code, doc);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view key;
    if (auto code = plain_key(field, key)) return _values.fail(code, doc);
    simdjson::ondemand::value& v = field.value();
    json_type type;
    if (auto code = v.type().get(type)) return _values.fail(code, v);
    // A {schema, payload} wrapper's members hold an object or null; a key column named
    // "schema" or "payload" holding a scalar stays a column.
    const bool wrapper_shape = type == json_type::object || type == json_type::null;
    if (key == "schema" && wrapper_shape && !seen_schema) {
      seen_schema = true;
      if (auto err = read_schema(v, false, out)) {
        return in_context("schema", std::move(*err));
      }
    } else if (key == "payload" && wrapper_shape && !seen_payload) {
      seen_payload = true;
      if (auto err = read_row("payload", v, out.after, out)) return err;
    } else {
      seen_plain = true;
      out.after.present = true;
      if (out.after.columns.size() >= _max_columns) {
        return make_error(error_code::too_many_columns,
                          "more than " + std::to_string(_max_columns) + " fields");
      }
      if (_values.has_nul(key)) return nul_in_name("field");
      if (auto err = read_field("field ", key, v, out.after.columns, out)) return err;
    }
  }
  if (auto err = at_end(doc, document)) return err;
  if (seen_payload && seen_plain) {
    return make_error(error_code::wrong_type,
                      "a {schema, payload} wrapper mixed with other fields");
  }
  if (seen_schema && !seen_payload && !seen_plain) {
    return make_error(error_code::missing_field, "a schema but no payload");
  }
  if (!seen_payload) out.columns_schema.clear();  // "schema" was no wrapper
  return check_unique(out.after.columns, "the key", _unique_key);
}

std::optional<error> debezium_envelope_reader::read_member(std::string_view name,
                                                           simdjson::ondemand::value& v,
                                                           debezium_envelope& out) {
  if (name == "before") return read_row("before", v, out.before, out);
  if (name == "after") return read_row("after", v, out.after, out);
  if (name == "source") return read_source(v, out);
  if (out.top.size() >= max_source_members) {
    return make_error(error_code::too_many_columns,
                      "record has more than " + std::to_string(max_source_members) + " members");
  }
  return read_field("", name, v, out.top, out);
}

std::optional<error> debezium_envelope_reader::read_row(std::string_view name,
                                                        simdjson::ondemand::value& v,
                                                        debezium_envelope::row& row,
                                                        debezium_envelope& out) {
  if (row.present || !row.columns.empty()) {
    return make_error(error_code::invalid_json, "duplicate " + std::string(name));
  }
  json_type type;
  if (auto code = v.type().get(type)) return _values.fail(code, v);
  if (type == json_type::null) {
    if (auto err = _values.skip(v)) return in_context(name, std::move(*err));
    return std::nullopt;
  }
  if (type != json_type::object) {
    return make_error(error_code::wrong_type, std::string(name) + " must be a JSON object or null");
  }
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return _values.fail(code, v);
  row.present = true;
  const std::string where = std::string(name) + " column ";
  for (auto member : object) {
    if (auto code = member.error()) return _values.fail(code, v);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view column;
    if (auto code = plain_key(field, column)) return _values.fail(code, v);
    if (_values.has_nul(column)) return nul_in_name(where);
    if (row.columns.size() >= _max_columns) {
      return make_error(
          error_code::too_many_columns,
          std::string(name) + " has more than " + std::to_string(_max_columns) + " columns");
    }
    if (auto err = read_field(where, column, field.value(), row.columns, out)) return err;
  }
  return std::nullopt;
}

std::optional<error> debezium_envelope_reader::read_source(simdjson::ondemand::value& v,
                                                           debezium_envelope& out) {
  json_type type;
  if (auto code = v.type().get(type)) return _values.fail(code, v);
  if (type == json_type::null) {
    if (auto err = _values.skip(v)) return in_context("source", std::move(*err));
    return std::nullopt;
  }
  if (type != json_type::object) {
    return make_error(error_code::wrong_type, "source must be a JSON object");
  }
  if (out.has_source) return make_error(error_code::invalid_json, "duplicate source");
  out.has_source = true;
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return _values.fail(code, v);
  for (auto member : object) {
    if (auto code = member.error()) return _values.fail(code, v);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view key;
    if (auto code = plain_key(field, key)) return _values.fail(code, v);
    if (out.source.size() >= max_source_members) {
      return make_error(error_code::too_many_columns,
                        "source has more than " + std::to_string(max_source_members) + " members");
    }
    if (auto err = read_field("source.", key, field.value(), out.source, out)) return err;
  }
  return std::nullopt;
}

std::optional<error> debezium_envelope_reader::read_field(
    std::string_view where, std::string_view name, simdjson::ondemand::value& v,
    std::vector<debezium_envelope::field>& into, debezium_envelope& out) {
  const size_t first = out.leaves.size();
  json_token token;
  if (auto err = _values.read(v, token, &out.leaves)) {
    const bool column = !where.empty() && where.back() == ' ';
    return in_context(std::string(where) + (column ? in_quotes(name) : std::string(name)),
                      std::move(*err));
  }
  into.push_back(debezium_envelope::field{name, token, static_cast<uint32_t>(first),
                                          static_cast<uint32_t>(out.leaves.size() - first)});
  return std::nullopt;
}

std::optional<error> debezium_envelope_reader::at_end(simdjson::ondemand::document& doc,
                                                      std::string_view document) {
  // A complete root value followed by anything but whitespace is not one JSON document.
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == simdjson::SUCCESS) {
    return make_error(error_code::invalid_json,
                      "invalid JSON: content after the record (at byte " +
                          std::to_string(_values.offset_of(rest).value_or(rest - document.data())) +
                          ")");
  }
  return std::nullopt;
}

std::optional<error> debezium_envelope_reader::check_unique(
    const std::vector<debezium_envelope::field>& fields, std::string_view where,
    std::vector<std::string>& unique) {
  if (fields.size() == unique.size()) {
    size_t same = 0;
    while (same < fields.size() && same_text(fields[same].name, unique[same]))
      ++same;
    if (same == fields.size()) return std::nullopt;
  }
  const auto dup = find_duplicate_member(fields, _names, unique);
  if (!dup) return std::nullopt;
  return make_error(error_code::invalid_json,
                    std::string(where) + " names " + in_quotes(*dup) + " twice");
}

}  // namespace sluice
