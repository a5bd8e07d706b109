#include "schemas/goldengate/goldengate_json_schema.h"

#include <array>
#include <optional>

#include <simdjson.h>

#include "schemas/goldengate/goldengate_types.h"

namespace sluice {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// Top-level members of a record that are not columns, whatever the field names.
constexpr std::array<std::string_view, 6> structural_members = {"primary_keys", "columns", "ddl",
                                                                "tokens",       "op_seq",  "csn"};

std::optional<object> object_of(element e) {
  object o;
  if (e.get_object().get(o)) return std::nullopt;
  return o;
}

std::optional<element> member(object o, std::string_view name) {
  element e;
  if (o.at_key(name).get(e)) return std::nullopt;
  return e;
}

std::string_view string_member(object o, std::string_view name) {
  std::string_view s;
  auto e = member(o, name);
  if (!e || e->get_string().get(s)) return {};
  return s;
}

// `o` itself, or what its "$ref" ("#/definitions/NAME") points to.
std::optional<object> resolve(object root, object o) {
  const std::string_view ref = string_member(o, "$ref");
  constexpr std::string_view prefix = "#/definitions/";
  if (!ref.starts_with(prefix)) return o;
  auto definitions = member(root, "definitions");
  if (!definitions) return std::nullopt;
  auto defs = object_of(*definitions);
  if (!defs) return std::nullopt;
  auto target = member(*defs, ref.substr(prefix.size()));
  return target ? object_of(*target) : std::nullopt;
}

// The first type name of `type` that is not "null".
std::string_view type_name(object o) {
  auto type = member(o, "type");
  if (!type) return {};
  std::string_view s;
  if (!type->get_string().get(s)) return s == "null" ? std::string_view() : s;
  simdjson::dom::array list;
  if (type->get_array().get(list)) return {};
  for (element e : list) {
    if (!e.get_string().get(s) && s != "null") return s;
  }
  return {};
}

column_type property_type(object root, object property, int depth = 0) {
  auto p = resolve(root, property);
  if (!p) return {};
  json_schema_property read;
  read.type = type_name(*p);
  if (read.type.empty() && depth == 0) {
    // ["null", {...}] written as anyOf / oneOf.
    for (std::string_view alternatives : {"anyOf", "oneOf"}) {
      auto list = member(*p, alternatives);
      simdjson::dom::array a;
      if (!list || list->get_array().get(a)) continue;
      for (element e : a) {
        auto alternative = object_of(e);
        if (!alternative) continue;
        column_type t = property_type(root, *alternative, depth + 1);
        if (t.known()) return t;
      }
    }
    return {};
  }
  read.format = string_member(*p, "format");
  read.content_encoding = string_member(*p, "contentEncoding");
  if (auto max = member(*p, "maxLength")) {
    int64_t n = 0;
    if (!max->get_int64().get(n)) read.max_length = n;
  }
  return json_schema_column_type(read);
}

// The properties of an image the schema describes (the after image, else the before one).
std::optional<object> image_properties(object root, object properties,
                                       const goldengate_names& names) {
  for (goldengate_field f : {goldengate_field::after, goldengate_field::before}) {
    auto image = member(properties, names.sent(f));
    if (!image) continue;
    auto o = object_of(*image);
    if (!o) continue;
    auto resolved = resolve(root, *o);
    if (!resolved) continue;
    if (auto columns = member(*resolved, "properties")) {
      if (auto c = object_of(*columns)) return c;
    }
  }
  return std::nullopt;
}

bool is_record_member(std::string_view name, const goldengate_names& names) {
  if (names.field(name)) return true;
  for (std::string_view s : structural_members) {
    if (s == name) return true;
  }
  return false;
}

}  // namespace

std::vector<column_types::column> json_schema_columns(std::string_view schema_text,
                                                      const goldengate_names& names,
                                                      size_t max_columns) {
  std::vector<column_types::column> out;
  simdjson::dom::parser parser;
  element doc;
  if (parser.parse(schema_text.data(), schema_text.size()).get(doc)) return out;
  auto root = object_of(doc);
  if (!root) return out;
  auto top = member(*root, "properties");
  if (!top) return out;
  auto properties = object_of(*top);
  if (!properties) return out;
  const auto image = image_properties(*root, *properties, names);
  for (auto [name, value] : image ? *image : *properties) {
    if (!image && is_record_member(name, names)) continue;
    if (out.size() >= max_columns) break;
    auto property = object_of(value);
    if (!property) continue;
    column_types::column c;
    c.name = std::string(name);
    c.type = property_type(*root, *property);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace sluice
