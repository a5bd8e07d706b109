#include "schemas/debezium/debezium_avro_reader.h"

#include <charconv>
#include <cmath>

#include <simdjson.h>

#include "core/model/base64.h"
#include "core/model/json_text.h"
#include "schemas/avro/avro_allocator.h"
#include "schemas/avro/avro_values.h"
#include "schemas/common/position_parser.h"

namespace sluice {
namespace {

// The Avro C value macros take a non-const pointer; reading never modifies the value.
avro_value_t* mut(const avro_value_t& v) {
  return const_cast<avro_value_t*>(&v);
}

error bad(std::string message) {
  return make_error(error_code::invalid_avro, std::move(message));
}

error mismatch() {
  return bad("record does not match its schema");
}

const avro_node& unwrap(const avro_node& n) {
  const avro_node* inner = n.nullable_of();
  return inner ? *inner : n;
}

// The branch a union holds (v itself for other types; unions of unions are not Avro).
bool resolve(const avro_value_t& v, const avro_node*& node, avro_value_t& out) {
  out = v;
  if (node->kind != avro_kind::union_of) return true;
  int d = 0;
  avro_value_t branch;
  if (avro_value_get_discriminant(mut(v), &d) || d < 0 ||
      static_cast<size_t>(d) >= node->branches.size() ||
      avro_value_get_current_branch(mut(v), &branch)) {
    return false;
  }
  node = node->branches[static_cast<size_t>(d)];
  out = branch;
  return true;
}

// The Connect type AvroConverter wrote this Avro type for (JsonConverter's spelling).
std::string_view connect_type_of(const avro_node& n) {
  switch (n.kind) {
    case avro_kind::null:
      return "null";
    case avro_kind::boolean:
      return "boolean";
    case avro_kind::int32:
      return n.connect_type == "int8" || n.connect_type == "int16"
                 ? std::string_view(n.connect_type)
                 : "int32";
    case avro_kind::int64:
      return "int64";
    case avro_kind::float32:
      return "float";
    case avro_kind::float64:
      return "double";
    case avro_kind::bytes:
    case avro_kind::fixed:
      return "bytes";
    case avro_kind::string:
    case avro_kind::enumeration:
      return "string";
    case avro_kind::array:
      return "array";
    case avro_kind::map:
      return "map";
    case avro_kind::record:
    case avro_kind::union_of:
      break;
  }
  return "struct";
}

std::optional<int32_t> int_parameter(const avro_node& n, std::string_view key) {
  const std::string* text = n.connect_parameter(key);
  if (!text) return std::nullopt;
  auto v = parse_integer(*text);
  if (!v || *v < INT32_MIN || *v > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(*v);
}

// What a JsonConverter schema would say of this column (views into the schema's nodes).
connect_field_schema column_schema(const avro_node::field& f) {
  const avro_node& t = unwrap(*f.type);
  connect_field_schema s;
  s.field = f.name;
  s.type = connect_type_of(t);
  // AvroConverter names a struct's record after its Connect schema (VariableScaleDecimal).
  s.name = !t.connect_name.empty() || t.kind != avro_kind::record ? std::string_view(t.connect_name)
                                                                  : std::string_view(t.name);
  s.scale = int_parameter(t, "scale");
  s.precision = int_parameter(t, "connect.decimal.precision");
  s.length = int_parameter(t, "length");
  if (t.kind == avro_kind::array && t.items) {
    const avro_node& items = unwrap(*t.items);
    s.items_type = connect_type_of(items);
    s.items_name = items.connect_name;
  }
  if (const std::string* type = t.connect_parameter("__debezium.source.column.type")) {
    s.source_type = *type;
  }
  s.source_length = int_parameter(t, "__debezium.source.column.length");
  s.source_scale = int_parameter(t, "__debezium.source.column.scale");
  return s;
}

const avro_node* record_of(const avro_node& n) {
  const avro_node& t = unwrap(n);
  return t.kind == avro_kind::record ? &t : nullptr;
}

}  // namespace

debezium_avro_reader::debezium_avro_reader(const decode_limits& limits) : _limits(limits) {
  // No single allocation of a record can exceed the message it is read from.
  install_avro_allocator(limits.max_message_bytes + 4096);
}

debezium_avro_reader::~debezium_avro_reader() = default;

result<std::unique_ptr<debezium_avro_reader::layout>> debezium_avro_reader::build(
    const std::shared_ptr<const registered_schema>& schema, bool key) const {
  const std::string id = std::to_string(schema->id.value());
  if (schema->type != "AVRO") {
    return make_error(error_code::unsupported, "schema id " + id + " is a " +
                                                   schema->type.substr(0, 16) +
                                                   " schema; sluice reads Avro only");
  }
  auto l = std::make_unique<layout>();
  l->schema = schema;
  auto info = avro_schema_info::parse(schema->text, _limits.max_depth);
  if (!info) return in_context("schema id " + id, info.err());
  l->info = std::move(*info);
  const avro_node& root = l->info->root();
  if (root.kind != avro_kind::record) {
    return make_error(
        error_code::wrong_type,
        "schema id " + id + ": a Debezium " + (key ? "key" : "event") + " must be an Avro record");
  }
  const avro_node* columns = key ? &root : nullptr;
  if (!key) {
    const avro_node* before = nullptr;
    for (const avro_node::field& f : root.fields) {
      role r = role::top;
      if (f.name == "source" && record_of(*f.type)) r = role::source;
      if (f.name == "before" && (before = record_of(*f.type))) r = role::before;
      if (f.name == "after" && (columns = record_of(*f.type))) r = role::after;
      l->roles.push_back(r);
    }
    if (!columns) columns = before;
  }
  if (columns) {
    if (columns->fields.size() > _limits.max_columns) {
      return make_error(error_code::too_many_columns,
                        "schema id " + id + " has " + std::to_string(columns->fields.size()) +
                            " columns, more than " + std::to_string(_limits.max_columns));
    }
    for (const avro_node::field& f : columns->fields)
      l->columns.push_back(column_schema(f));
  }
  // Avro C last: it checks the schema again (names, defaults) and builds the value class.
  auto avro = avro_record_schema::parse(schema->text);
  if (!avro) return in_context("schema id " + id, avro.err());
  l->avro = std::move(*avro);
  return l;
}

result<debezium_avro_reader::layout*> debezium_avro_reader::layout_for(
    const std::shared_ptr<const registered_schema>& schema, bool key) {
  auto& cache = key ? _keys : _values;
  const int32_t id = schema->id.value();
  if (auto it = cache.find(id); it != cache.end()) {
    // The same id names the same schema in one registry: the pointer compare suffices, the
    // text compare covers a client that hands out copies.
    const layout& l = *it->second;
    if (l.schema == schema || l.schema->text == schema->text) return it->second.get();
    cache.erase(it);
  }
  auto built = build(schema, key);
  if (!built) return built.err();
  ++_builds;
  if (cache.size() >= max_cached_schemas) cache.clear();
  return cache.emplace(id, std::move(*built)).first->second.get();
}

std::optional<error> debezium_avro_reader::decode_body(layout& l, std::string_view body) {
  return _binary.read(body, l.info->root(), _limits.max_depth, l.avro->value());
}

std::optional<error> debezium_avro_reader::read(
    const std::shared_ptr<const registered_schema>& schema, std::string_view body,
    debezium_envelope& out) {
  _texts = &_value_texts;
  _texts->used = 0;
  out.clear();
  auto l = layout_for(schema, /*key=*/false);
  if (!l) return l.err();
  if (auto err = decode_body(**l, body)) return err;
  const avro_value_t& record = (*l)->avro->value();
  const std::vector<avro_node::field>& fields = (*l)->info->root().fields;
  size_t size = 0;
  if (avro_value_get_size(mut(record), &size) || size != fields.size()) return mismatch();
  for (size_t i = 0; i < fields.size(); ++i) {
    avro_value_t child;
    if (avro_value_get_by_index(mut(record), i, &child, nullptr)) return mismatch();
    const avro_node::field& f = fields[i];
    std::optional<error> err;
    switch ((*l)->roles[i]) {
      case role::top: {
        debezium_envelope::field& top = out.top.emplace_back();
        top.name = f.name;
        top.first_leaf = static_cast<uint32_t>(out.leaves.size());
        err = token(child, *f.type, top.token, out);
        top.leaf_count = static_cast<uint32_t>(out.leaves.size()) - top.first_leaf;
        break;
      }
      case role::source: {
        const avro_node* node = f.type;
        avro_value_t source;
        if (!resolve(child, node, source)) return mismatch();
        if (node->kind != avro_kind::record) break;  // null: no source
        out.has_source = true;
        err = read_fields(source, *node, out.source, out);
        break;
      }
      case role::before:
        err = read_row(child, *f.type, out.before, out);
        break;
      case role::after:
        err = read_row(child, *f.type, out.after, out);
        break;
    }
    if (err) return in_context(f.name, std::move(*err));
  }
  out.columns_schema.assign((*l)->columns.begin(), (*l)->columns.end());
  out.wrapped = true;
  return std::nullopt;
}

std::optional<error> debezium_avro_reader::read_key(
    const std::shared_ptr<const registered_schema>& schema, std::string_view body,
    debezium_envelope& out) {
  _texts = &_key_texts;
  _texts->used = 0;
  out.clear();
  auto l = layout_for(schema, /*key=*/true);
  if (!l) return l.err();
  if (auto err = decode_body(**l, body)) return err;
  out.after.present = true;
  if (auto err = read_fields((*l)->avro->value(), (*l)->info->root(), out.after.columns, out)) {
    return err;
  }
  out.columns_schema.assign((*l)->columns.begin(), (*l)->columns.end());
  out.wrapped = true;
  return std::nullopt;
}

std::optional<error> debezium_avro_reader::read_row(const avro_value_t& v, const avro_node& type,
                                                    debezium_envelope::row& row,
                                                    debezium_envelope& out) {
  const avro_node* node = &type;
  avro_value_t record;
  if (!resolve(v, node, record)) return mismatch();
  if (node->kind == avro_kind::null) return std::nullopt;  // no image
  if (node->kind != avro_kind::record) return mismatch();
  row.present = true;
  return read_fields(record, *node, row.columns, out);
}

std::optional<error> debezium_avro_reader::read_fields(const avro_value_t& record,
                                                       const avro_node& node,
                                                       std::vector<debezium_envelope::field>& into,
                                                       debezium_envelope& out) {
  size_t size = 0;
  if (avro_value_get_size(mut(record), &size) || size != node.fields.size()) return mismatch();
  for (size_t i = 0; i < size; ++i) {
    avro_value_t child;
    if (avro_value_get_by_index(mut(record), i, &child, nullptr)) return mismatch();
    debezium_envelope::field& f = into.emplace_back();
    f.name = node.fields[i].name;
    f.first_leaf = static_cast<uint32_t>(out.leaves.size());
    if (auto err = token(child, *node.fields[i].type, f.token, out)) {
      return in_context("\"" + node.fields[i].name + "\"", std::move(*err));
    }
    f.leaf_count = static_cast<uint32_t>(out.leaves.size()) - f.first_leaf;
  }
  return std::nullopt;
}

std::optional<error> debezium_avro_reader::token(const avro_value_t& v, const avro_node& node,
                                                 json_token& out, debezium_envelope& e) {
  const avro_node* n = &node;
  avro_value_t inner;
  if (!resolve(v, n, inner)) return mismatch();
  if (n->kind != avro_kind::record && n->kind != avro_kind::map && n->kind != avro_kind::array) {
    return scalar(inner, *n, out);
  }
  std::string& text = fresh();
  if (auto err = json(inner, *n, 0, text, {}, e)) return err;
  out.kind = n->kind == avro_kind::array ? json_kind::array : json_kind::object;
  out.text = text;
  return std::nullopt;
}

std::optional<error> debezium_avro_reader::scalar(const avro_value_t& v, const avro_node& n,
                                                  json_token& out) {
  const auto number = [&](auto x) {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
    out.kind = json_kind::number;
    out.text = keep(std::string_view(buf, static_cast<size_t>(end - buf)));
  };
  const auto floating = [&](auto x) {
    if (std::isfinite(x)) return number(x);
    out.kind = json_kind::string;  // as JsonConverter writes them
    out.text = std::isnan(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity";
  };
  switch (n.kind) {
    case avro_kind::null:
      out = {json_kind::null, {}};
      return std::nullopt;
    case avro_kind::boolean: {
      int b = 0;
      if (avro_value_get_boolean(mut(v), &b)) return mismatch();
      out = {json_kind::boolean, b ? "true" : "false"};
      return std::nullopt;
    }
    case avro_kind::int32: {
      int32_t x = 0;
      if (avro_value_get_int(mut(v), &x)) return mismatch();
      number(x);
      return std::nullopt;
    }
    case avro_kind::int64: {
      int64_t x = 0;
      if (avro_value_get_long(mut(v), &x)) return mismatch();
      number(x);
      return std::nullopt;
    }
    case avro_kind::float32: {
      float x = 0;
      if (avro_value_get_float(mut(v), &x)) return mismatch();
      floating(x);
      return std::nullopt;
    }
    case avro_kind::float64: {
      double x = 0;
      if (avro_value_get_double(mut(v), &x)) return mismatch();
      floating(x);
      return std::nullopt;
    }
    case avro_kind::string: {
      const char* p = nullptr;
      size_t size = 0;  // counts the NUL terminator Avro C adds
      if (avro_value_get_string(mut(v), &p, &size)) return mismatch();
      const std::string_view s(p, size > 0 ? size - 1 : 0);
      if (s.find('\0') != std::string_view::npos) {
        return make_error(error_code::nul_in_text,
                          "text holds \\u0000, which PostgreSQL cannot store");
      }
      if (!simdjson::validate_utf8(s.data(), s.size())) {
        return make_error(error_code::wrong_type, "string is not valid UTF-8");
      }
      out = {json_kind::string, s};  // Avro C's copy lives until the next record
      return std::nullopt;
    }
    case avro_kind::bytes:
    case avro_kind::fixed: {
      const void* p = nullptr;
      size_t size = 0;
      const int rc = n.kind == avro_kind::bytes ? avro_value_get_bytes(mut(v), &p, &size)
                                                : avro_value_get_fixed(mut(v), &p, &size);
      if (rc) return mismatch();
      std::string& text = fresh();
      append_base64(text, std::string_view(static_cast<const char*>(p), size));
      out = {json_kind::string, text};
      return std::nullopt;
    }
    case avro_kind::enumeration: {
      int index = 0;
      if (avro_value_get_enum(mut(v), &index) || index < 0 ||
          static_cast<size_t>(index) >= n.symbols.size()) {
        return mismatch();
      }
      out = {json_kind::string, n.symbols[static_cast<size_t>(index)]};
      return std::nullopt;
    }
    case avro_kind::record:
    case avro_kind::map:
    case avro_kind::array:
    case avro_kind::union_of:
      break;
  }
  return mismatch();
}

std::optional<error> debezium_avro_reader::json(const avro_value_t& v, const avro_node& n,
                                                size_t depth, std::string& out,
                                                std::string_view name, debezium_envelope& e) {
  if (depth > _limits.max_depth) return make_error(error_code::too_deep, "value nested too deep");
  const avro_node* node = &n;
  avro_value_t inner;
  if (!resolve(v, node, inner)) return mismatch();
  if (node->kind != avro_kind::record && node->kind != avro_kind::map &&
      node->kind != avro_kind::array) {
    json_leaf& leaf = e.leaves.emplace_back();
    leaf.name = name;
    if (auto err = scalar(inner, *node, leaf.token)) return err;
    if (leaf.token.kind == json_kind::string) {
      append_json_string(out, leaf.token.text);
    } else {
      out.append(leaf.token.kind == json_kind::null ? "null" : leaf.token.text);
    }
    return std::nullopt;
  }
  size_t size = 0;
  if (avro_value_get_size(mut(inner), &size)) return mismatch();
  if (node->kind == avro_kind::record && size != node->fields.size()) return mismatch();
  const bool object = node->kind != avro_kind::array;
  out.push_back(object ? '{' : '[');
  for (size_t i = 0; i < size; ++i) {
    avro_value_t child;
    const char* key = nullptr;
    if (avro_value_get_by_index(mut(inner), i, &child, &key)) return mismatch();
    if (i > 0) out.push_back(',');
    std::string_view child_name;
    if (node->kind == avro_kind::record) {
      child_name = node->fields[i].name;
    } else if (node->kind == avro_kind::map) {
      const std::string_view k = key ? std::string_view(key) : std::string_view();
      if (!simdjson::validate_utf8(k.data(), k.size())) {
        return make_error(error_code::wrong_type, "map key is not valid UTF-8");
      }
      child_name = keep(k);
    }
    if (object) {
      append_json_string(out, child_name);
      out.push_back(':');
    }
    const avro_node& type = node->kind == avro_kind::record ? *node->fields[i].type : *node->items;
    if (auto err = json(child, type, depth + 1, out, child_name, e)) return err;
  }
  out.push_back(object ? '}' : ']');
  return std::nullopt;
}

std::string& debezium_avro_reader::fresh() {
  if (_texts->used == _texts->kept.size()) _texts->kept.emplace_back();
  std::string& s = _texts->kept[_texts->used++];
  s.clear();
  return s;
}

std::string_view debezium_avro_reader::keep(std::string_view text) {
  std::string& s = fresh();
  s.assign(text);
  return s;
}

}  // namespace sluice
