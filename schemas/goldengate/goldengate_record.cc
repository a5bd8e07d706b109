#include "schemas/goldengate/goldengate_record.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "schemas/common/duplicate_names.h"
#include "schemas/common/json_text.h"
#include "schemas/common/same_text.h"

namespace sluice {
namespace {

using simdjson::ondemand::json_type;

std::string in_quotes(std::string_view s) {
  return "\"" + std::string(s.substr(0, 64)) + "\"";
}

error nul_name(std::string_view where) {
  return make_error(error_code::nul_in_text, std::string(where) + " has a name containing \\u0000");
}

error duplicate(std::string_view where, std::string_view name) {
  return make_error(error_code::invalid_json,
                    std::string(where) + " names " + in_quotes(name) + " twice");
}

const char* kind_name(json_kind kind) {
  switch (kind) {
    case json_kind::null:
      return "null";
    case json_kind::boolean:
      return "a boolean";
    case json_kind::number:
      return "a number";
    case json_kind::string:
      return "a string";
    case json_kind::object:
      return "an object";
    case json_kind::array:
      return "an array";
  }
  return "a value";
}

}  // namespace

void goldengate_record::clear() {
  fields.fill(slot{});
  // before and after are not cleared: read_image() overwrites them in place (image_writer)
  // and read() empties the ones the record does not give.
  has_columns = false;
  columns.clear();
  has_ddl = false;
  ddl_catalog = ddl_schema = ddl_object = ddl_qualified = {};
  ddl_statement.reset();
  members.clear();
  leaves.clear();
  raw = {};
  data_text.reset();
}

const goldengate_record::member* goldengate_record::find(std::string_view name) const {
  for (const member& m : members) {
    if (same_text(m.name, name)) return &m;
  }
  return nullptr;
}

error goldengate_record_reader::fail(simdjson::error_code code) const {
  if (_doc) return _values.fail(code, *_doc);
  return json_error(code);
}

std::optional<error> goldengate_record_reader::read(simdjson::ondemand::document& doc,
                                                    std::string_view text, bool unwrap,
                                                    goldengate_record& out) {
  _doc = &doc;
  _values.begin_document(text);
  out.clear();
  out.raw = trim_json_whitespace(text);
  bool envelope = false;
  if (unwrap) {
    // A cheap look at the root's names only; the walk below validates everything.
    simdjson::ondemand::value probe;
    const auto code = doc.find_field_unordered("specversion").get(probe);
    if (code == simdjson::INCORRECT_TYPE) {
      return make_error(error_code::wrong_type, "a GoldenGate record is a JSON object");
    }
    // After any other error simdjson abandons the document: rewinding it is not allowed.
    if (code != simdjson::SUCCESS && code != simdjson::NO_SUCH_FIELD) return json_error(code);
    envelope = code == simdjson::SUCCESS;
    doc.rewind();
  }
  return read_root(doc, text, envelope, out);
}

bool goldengate_record_reader::read_plain(simdjson::ondemand::document& doc, std::string_view text,
                                          goldengate_record& out) {
  _doc = &doc;
  _values.begin_document(text);
  out.clear();
  out.raw = trim_json_whitespace(text);
  _plain = true;
  const bool read = !read_root(doc, text, /*envelope=*/false, out);
  _plain = false;
  return read;
}

std::optional<error> goldengate_record_reader::read_root(simdjson::ondemand::document& doc,
                                                         std::string_view text, bool envelope,
                                                         goldengate_record& out) {
  simdjson::ondemand::object root;
  if (auto code = doc.get_object().get(root)) {
    if (code == simdjson::INCORRECT_TYPE) {
      return make_error(error_code::wrong_type, "a GoldenGate record is a JSON object");
    }
    return json_error(code);  // the root as a whole: no useful byte offset
  }
  if (auto err = envelope ? read_envelope(root, out) : read_record(root, out)) return err;
  // Images the record did not give as objects hold an earlier record's columns: empty them.
  if (out.get(goldengate_field::before).token.kind != json_kind::object) out.before.clear();
  if (out.get(goldengate_field::after).token.kind != json_kind::object) out.after.clear();
  // A complete root object followed by anything but whitespace is not one JSON document.
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == simdjson::SUCCESS) {
    return make_error(error_code::invalid_json, "invalid JSON: content after the record (at byte " +
                                                    std::to_string(rest - text.data()) + ")");
  }
  return std::nullopt;
}

std::optional<error> goldengate_record_reader::read_envelope(simdjson::ondemand::object& root,
                                                             goldengate_record& out) {
  bool has_data = false;
  for (auto member : root) {
    if (auto code = member.error()) return fail(code);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view key;
    if (auto code = plain_key(field, key)) return fail(code);
    if (_values.has_nul(key)) return nul_name("the CloudEvents envelope");
    simdjson::ondemand::value& v = field.value();
    if (key != "data") {
      if (auto err = _values.skip(v)) return in_context("CloudEvents " + in_quotes(key), *err);
      continue;
    }
    if (has_data) return duplicate("the CloudEvents envelope", "data");
    has_data = true;
    json_type type;
    if (auto code = v.type().get(type)) return fail(code);
    if (type == json_type::object) {
      const char* start = v.raw_json_token().data();
      simdjson::ondemand::object data;
      if (auto code = v.get_object().get(data)) return fail(code);
      if (auto err = read_record(data, out)) return in_context("CloudEvents data", *err);
      // The iterator now stands on the structural character after the closing brace.
      const char* end = nullptr;
      if (auto code = v.current_location().get(end)) return fail(code);
      out.raw = trim_json_whitespace(std::string_view(start, static_cast<size_t>(end - start)));
    } else {
      auto token = _values.read(v);
      if (!token) return in_context("CloudEvents data", token.err());
      if (token->kind != json_kind::string) {
        return make_error(error_code::wrong_type, std::string("CloudEvents data must be an object "
                                                              "or a JSON string, not ") +
                                                      kind_name(token->kind));
      }
      out.data_text = token->text;
    }
  }
  if (!has_data) {
    return make_error(error_code::missing_field, "CloudEvents envelope without data");
  }
  return std::nullopt;
}

std::optional<error> goldengate_record_reader::read_record(simdjson::ondemand::object& object,
                                                           goldengate_record& out) {
  for (auto member : object) {
    if (auto code = member.error()) return fail(code);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view key;
    if (auto code = plain_key(field, key)) return fail(code);
    if (_values.has_nul(key)) return nul_name("the record");
    // read_plain() only reads records without it; which error it would be does not matter.
    if (_plain && key.size() == 11 && key == "specversion") {
      return make_error(error_code::invalid_json, "a CloudEvents envelope");
    }
    simdjson::ondemand::value& v = field.value();
    if (const auto which = _names.field(key)) {
      auto& slot = out.fields[static_cast<size_t>(*which)];
      if (slot.present) return duplicate("the record", key);
      if (*which == goldengate_field::before || *which == goldengate_field::after) {
        if (auto err = read_image(v, *which, out)) return err;
        continue;
      }
      if (auto err = _values.read(v, slot.token)) return in_context(in_quotes(key), *err);
      slot.present = true;
    } else if (key == "columns") {
      if (out.has_columns) return duplicate("the record", key);
      if (auto err = read_columns(v, out)) return err;
    } else if (key == "ddl") {
      if (out.has_ddl) return duplicate("the record", key);
      if (auto err = read_ddl(v, out)) return err;
    } else if (auto err = read_member(key, v, out)) {
      return err;
    }
  }
  _scratch.clear();
  for (const auto& m : out.members)
    _scratch.push_back(m.name);
  if (const std::string_view* dup = find_duplicate()) return duplicate("the record", *dup);
  return std::nullopt;
}

std::optional<error> goldengate_record_reader::read_member(std::string_view name,
                                                           simdjson::ondemand::value& v,
                                                           goldengate_record& out) {
  const size_t first = out.leaves.size();
  json_token token;
  if (auto err = _values.read(v, token, &out.leaves)) return in_context(in_quotes(name), *err);
  out.members.push_back(goldengate_record::member{
      name, token, static_cast<uint32_t>(first), static_cast<uint32_t>(out.leaves.size() - first)});
  return std::nullopt;
}

std::optional<error> goldengate_record_reader::read_image(simdjson::ondemand::value& v,
                                                          goldengate_field which,
                                                          goldengate_record& out) {
  auto& slot = out.fields[static_cast<size_t>(which)];
  slot.present = true;
  // Only errors need the label: images are on the hot path.
  const auto label = [&] { return _names.label(which); };
  json_type type;
  if (auto code = v.type().get(type)) return fail(code);
  if (type != json_type::object) {
    auto token = _values.read(v);
    if (!token) return in_context(label(), token.err());
    slot.token = *token;  // the decoder says what it expected
    return std::nullopt;
  }
  slot.token = json_token{json_kind::object, {}};
  // Written over the columns an earlier record left (their strings keep their capacity); on
  // error it is left half-written, and the decoder does not use it.
  image_writer img(which == goldengate_field::before ? out.before : out.after);
  // Names as the last image of this kind found unique: then no duplicate check is needed.
  std::vector<std::string>& unique = _unique_names[which == goldengate_field::before ? 0 : 1];
  bool same_as_unique = true;
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return fail(code);
  for (auto member : object) {
    if (auto code = member.error()) return fail(code);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view name;
    if (auto code = plain_key(field, name)) return fail(code);
    if (_values.has_nul(name)) return nul_name(label());
    if (img.size() >= _max_columns) {
      return make_error(error_code::too_many_columns,
                        label() + " has more than " + std::to_string(_max_columns) + " columns");
    }
    const size_t index = img.size();
    same_as_unique = same_as_unique && index < unique.size() && same_text(unique[index], name);
    column_value& column = img.next();
    if (!same_text(column.name, name)) column.name.assign(name);
    if (auto err = _values.read_value(field.value(), column.v)) {
      return in_context(label() + " column " + in_quotes(name), std::move(*err));
    }
  }
  img.finish();
  if (same_as_unique && img.size() == unique.size()) return std::nullopt;
  const image& columns = which == goldengate_field::before ? out.before : out.after;
  _scratch.clear();
  for (const column_value& c : columns)
    _scratch.push_back(c.name);
  if (const std::string_view* dup = find_duplicate()) return duplicate(label(), *dup);
  unique.resize(columns.size());
  for (size_t i = 0; i < columns.size(); ++i)
    unique[i].assign(columns[i].name);
  return std::nullopt;
}

std::optional<error> goldengate_record_reader::read_columns(simdjson::ondemand::value& v,
                                                            goldengate_record& out) {
  json_type type;
  if (auto code = v.type().get(type)) return fail(code);
  if (type != json_type::object) return read_member("columns", v, out);
  out.has_columns = true;
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return fail(code);
  for (auto member : object) {
    if (auto code = member.error()) return fail(code);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view name;
    if (auto code = plain_key(field, name)) return fail(code);
    if (_values.has_nul(name)) return nul_name("columns");
    if (name.empty())
      return make_error(error_code::bad_identifier, "columns names an empty column");
    if (out.columns.size() >= _max_columns) {
      return make_error(error_code::too_many_columns,
                        "columns has more than " + std::to_string(_max_columns) + " columns");
    }
    if (auto err = read_column(name, field.value(), out)) return err;
  }
  _scratch.clear();
  for (const auto& c : out.columns)
    _scratch.push_back(c.name);
  if (const std::string_view* dup = find_duplicate()) return duplicate("columns", *dup);
  return std::nullopt;
}

std::optional<error> goldengate_record_reader::read_column(std::string_view name,
                                                           simdjson::ondemand::value& v,
                                                           goldengate_record& out) {
  const std::string where = "columns " + in_quotes(name);
  json_type type;
  if (auto code = v.type().get(type)) return fail(code);
  if (type != json_type::object) {
    return make_error(error_code::wrong_type, where + " must be an object");
  }
  goldengate_column_meta meta;
  meta.name = name;
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return fail(code);
  for (auto member : object) {
    if (auto code = member.error()) return fail(code);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view key;
    if (auto code = plain_key(field, key)) return fail(code);
    const std::string attribute = where + "." + std::string(key);
    if (key == "null" || key == "key") {
      auto token = _values.read(field.value());
      if (!token) return in_context(attribute, token.err());
      if (token->kind != json_kind::boolean) {
        return make_error(error_code::wrong_type, attribute + " must be a boolean");
      }
      (key == "null" ? meta.nullable : meta.key) = token->text == "true";
    } else if (key == "type") {
      // A primitive type, or JSON Schema's list of them (["number", "null"]).
      std::vector<json_leaf> types;
      auto token = _values.read(field.value(), &types);
      if (!token) return in_context(attribute, token.err());
      if (token->kind == json_kind::string) {
        meta.type = token->text;
      } else if (token->kind == json_kind::array) {
        for (const json_leaf& t : types) {
          if (t.token.kind != json_kind::string) {
            return make_error(error_code::wrong_type, attribute + " must list type names");
          }
          if (meta.type.empty() && t.token.text != "null") meta.type = t.token.text;
        }
      } else if (token->kind != json_kind::null) {
        return make_error(error_code::wrong_type, attribute + " must be a string");
      }
    } else if (auto err = _values.skip(field.value())) {
      return in_context(attribute, *err);
    }
  }
  out.columns.push_back(meta);
  return std::nullopt;
}

std::optional<error> goldengate_record_reader::read_ddl(simdjson::ondemand::value& v,
                                                        goldengate_record& out) {
  json_type type;
  if (auto code = v.type().get(type)) return fail(code);
  if (type != json_type::object) return read_member("ddl", v, out);
  out.has_ddl = true;
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return fail(code);
  for (auto member : object) {
    if (auto code = member.error()) return fail(code);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view key;
    if (auto code = plain_key(field, key)) return fail(code);
    if (key == "object") {
      if (auto err = read_ddl_object(field.value(), out)) return err;
    } else if (key == "statement") {
      auto token = _values.read(field.value());
      if (!token) return in_context("ddl.statement", token.err());
      if (token->kind != json_kind::string) {
        return make_error(error_code::wrong_type, "ddl.statement must be a string");
      }
      out.ddl_statement = token->text;
    } else if (auto err = _values.skip(field.value())) {
      return in_context("ddl." + std::string(key), *err);
    }
  }
  return std::nullopt;
}

std::optional<error> goldengate_record_reader::read_ddl_object(simdjson::ondemand::value& v,
                                                               goldengate_record& out) {
  std::vector<json_leaf> parts;
  auto token = _values.read(v, &parts);
  if (!token) return in_context("ddl.object", token.err());
  switch (token->kind) {
    case json_kind::null:
      return std::nullopt;
    case json_kind::string:
      out.ddl_qualified = token->text;
      return std::nullopt;
    case json_kind::object:
      break;
    default:
      return make_error(error_code::wrong_type, "ddl.object must be an object or a string");
  }
  for (const json_leaf& part : parts) {
    std::string_view* into = part.name == "catalog"  ? &out.ddl_catalog
                             : part.name == "schema" ? &out.ddl_schema
                             : part.name == "object" ? &out.ddl_object
                                                     : nullptr;
    if (!into) continue;
    if (part.token.kind != json_kind::string && part.token.kind != json_kind::null) {
      return make_error(error_code::wrong_type,
                        "ddl.object." + std::string(part.name) + " must be a string");
    }
    *into = part.token.text;
  }
  return std::nullopt;
}

const std::string_view* goldengate_record_reader::find_duplicate() {
  // Whether there is one: the cheap pairwise look (find_duplicate_name may reorder, so on a
  // find the names are sorted below and the smallest repeated one is named, as always).
  if (!find_duplicate_name(_scratch)) return nullptr;
  std::sort(_scratch.begin(), _scratch.end());
  const auto dup = std::adjacent_find(_scratch.begin(), _scratch.end());
  return dup == _scratch.end() ? nullptr : &*dup;
}

}  // namespace sluice
