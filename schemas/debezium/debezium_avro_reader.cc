#include "schemas/debezium/debezium_avro_reader.h"

#include <charconv>
#include <cmath>

#include <simdjson.h>

#include "core/model/base64.h"
#include "core/model/json_text.h"
#include "schemas/avro/avro_allocator.h"
#include "schemas/avro/avro_container.h"
#include "schemas/avro/avro_values.h"
#include "schemas/common/position_parser.h"

namespace sluice {
namespace {

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

debezium_avro_reader::debezium_avro_reader(const decode_limits& limits)
    : _limits(limits), _budget(limits.max_message_bytes) {
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
  // Avro C checks the schema too (names, defaults): a schema it refuses is refused here.
  auto avro = avro_record_schema::parse(schema->text);
  if (!avro) return in_context("schema id " + id, avro.err());
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

std::optional<error> debezium_avro_reader::read(
    const std::shared_ptr<const registered_schema>& schema, std::string_view body,
    debezium_envelope& out) {
  _texts = &_value_texts;
  _texts->used = 0;
  _budget.start(body.size());
  out.clear();
  auto l = layout_for(schema, /*key=*/false);
  if (!l) return l.err();
  avro_binary_cursor in(body);
  const std::vector<avro_node::field>& fields = (*l)->info->root().fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    const avro_node::field& f = fields[i];
    std::optional<error> err;
    switch ((*l)->roles[i]) {
      case role::top: {
        debezium_envelope::field& top = out.top.emplace_back();
        top.name = f.name;
        top.first_leaf = static_cast<uint32_t>(out.leaves.size());
        err = token(in, *f.type, top.token, out, 1);
        top.leaf_count = static_cast<uint32_t>(out.leaves.size()) - top.first_leaf;
        break;
      }
      case role::source: {
        auto node = branch(in, f.type);
        if (!node) return in_context(f.name, node.err());
        if ((*node)->kind != avro_kind::record) break;  // null: no source
        out.has_source = true;
        err = read_fields(in, **node, out.source, out, 2);
        break;
      }
      case role::before:
        err = read_row(in, *f.type, out.before, out);
        break;
      case role::after:
        err = read_row(in, *f.type, out.after, out);
        break;
    }
    if (err) return in_context(f.name, std::move(*err));
  }
  if (in.left() != 0) return bad(std::to_string(in.left()) + " bytes after the record");
  out.columns_schema.assign((*l)->columns.begin(), (*l)->columns.end());
  out.wrapped = true;
  return std::nullopt;
}

std::optional<error> debezium_avro_reader::read_key(
    const std::shared_ptr<const registered_schema>& schema, std::string_view body,
    debezium_envelope& out) {
  _texts = &_key_texts;
  _texts->used = 0;
  _budget.start(body.size());
  out.clear();
  auto l = layout_for(schema, /*key=*/true);
  if (!l) return l.err();
  avro_binary_cursor in(body);
  out.after.present = true;
  if (auto err = read_fields(in, (*l)->info->root(), out.after.columns, out, 1)) return err;
  if (in.left() != 0) return bad(std::to_string(in.left()) + " bytes after the record");
  out.columns_schema.assign((*l)->columns.begin(), (*l)->columns.end());
  out.wrapped = true;
  return std::nullopt;
}

result<const avro_node*> debezium_avro_reader::branch(avro_binary_cursor& in,
                                                      const avro_node* node) {
  if (node->kind != avro_kind::union_of) return node;
  int64_t i = 0;
  if (!in.read_long(i) || i < 0 || static_cast<uint64_t>(i) >= node->branches.size()) {
    return bad("union branch out of range");
  }
  return node->branches[static_cast<size_t>(i)];
}

std::optional<error> debezium_avro_reader::read_row(avro_binary_cursor& in, const avro_node& type,
                                                    debezium_envelope::row& row,
                                                    debezium_envelope& out) {
  auto node = branch(in, &type);
  if (!node) return node.err();
  if ((*node)->kind == avro_kind::null) return std::nullopt;  // no image
  if ((*node)->kind != avro_kind::record) return mismatch();
  row.present = true;
  return read_fields(in, **node, row.columns, out, 2);
}

std::optional<error> debezium_avro_reader::read_fields(avro_binary_cursor& in,
                                                       const avro_node& node,
                                                       std::vector<debezium_envelope::field>& into,
                                                       debezium_envelope& out, size_t depth) {
  for (const avro_node::field& f : node.fields) {
    debezium_envelope::field& column = into.emplace_back();
    column.name = f.name;
    column.first_leaf = static_cast<uint32_t>(out.leaves.size());
    if (auto err = token(in, *f.type, column.token, out, depth)) {
      return in_context("\"" + f.name + "\"", std::move(*err));
    }
    column.leaf_count = static_cast<uint32_t>(out.leaves.size()) - column.first_leaf;
  }
  return std::nullopt;
}

std::optional<error> debezium_avro_reader::token(avro_binary_cursor& in, const avro_node& node,
                                                 json_token& out, debezium_envelope& e,
                                                 size_t depth) {
  auto n = branch(in, &node);
  if (!n) return n.err();
  const avro_kind kind = (*n)->kind;
  if (kind != avro_kind::record && kind != avro_kind::map && kind != avro_kind::array) {
    if (auto err = scalar(in, **n, out)) return err;
    if (!_budget.charge_value(out.text.size())) return _budget.exceeded();
    return std::nullopt;
  }
  if (!_budget.charge(decode_budget::value_units)) return _budget.exceeded();
  std::string& text = fresh();
  if (auto err = json(in, **n, depth, text, {}, e)) return err;
  out.kind = kind == avro_kind::array ? json_kind::array : json_kind::object;
  out.text = text;
  return std::nullopt;
}

std::optional<error> debezium_avro_reader::scalar(avro_binary_cursor& in, const avro_node& n,
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
      bool b = false;
      if (!in.read_boolean(b)) return bad("boolean cut short or not 0/1");
      out = {json_kind::boolean, b ? "true" : "false"};
      return std::nullopt;
    }
    case avro_kind::int32: {
      int32_t x = 0;
      if (!in.read_int(x)) return bad("int cut short or out of range");
      number(x);
      return std::nullopt;
    }
    case avro_kind::int64: {
      int64_t x = 0;
      if (!in.read_long(x)) return bad("long cut short or too long");
      number(x);
      return std::nullopt;
    }
    case avro_kind::float32: {
      float x = 0;
      if (!in.read_floating(x)) return bad("float cut short");
      floating(x);
      return std::nullopt;
    }
    case avro_kind::float64: {
      double x = 0;
      if (!in.read_floating(x)) return bad("double cut short");
      floating(x);
      return std::nullopt;
    }
    case avro_kind::string: {
      std::string_view s;
      if (!in.read_bytes(s)) return bad("string length cut short or past the record");
      if (s.find('\0') != std::string_view::npos) {
        return make_error(error_code::nul_in_text,
                          "text holds \\u0000, which PostgreSQL cannot store");
      }
      if (!simdjson::validate_utf8(s.data(), s.size())) {
        return make_error(error_code::wrong_type, "string is not valid UTF-8");
      }
      out = {json_kind::string, s};  // a view into the message
      return std::nullopt;
    }
    case avro_kind::bytes:
    case avro_kind::fixed: {
      std::string_view b;
      const bool ok = n.kind == avro_kind::bytes ? in.read_bytes(b)
                                                 : in.read_fixed(static_cast<size_t>(n.size), b);
      if (!ok) return bad("bytes length cut short or past the record");
      std::string& text = fresh();
      append_base64(text, b);
      out = {json_kind::string, text};
      return std::nullopt;
    }
    case avro_kind::enumeration: {
      int64_t index = 0;
      if (!in.read_long(index) || index < 0 || static_cast<uint64_t>(index) >= n.symbols.size()) {
        return bad("enum index out of range");
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

std::optional<error> debezium_avro_reader::json(avro_binary_cursor& in, const avro_node& n,
                                                size_t depth, std::string& out,
                                                std::string_view name, debezium_envelope& e) {
  if (depth > _limits.max_depth) return make_error(error_code::too_deep, "value nested too deep");
  auto resolved = branch(in, &n);
  if (!resolved) return resolved.err();
  const avro_node& node = **resolved;
  if (node.kind != avro_kind::record && node.kind != avro_kind::map &&
      node.kind != avro_kind::array) {
    json_leaf& leaf = e.leaves.emplace_back();
    leaf.name = name;
    if (auto err = scalar(in, node, leaf.token)) return err;
    // The leaf and its text in the JSON: twice the text.
    if (!_budget.charge_value(2 * leaf.token.text.size())) return _budget.exceeded();
    if (leaf.token.kind == json_kind::string) {
      append_json_string(out, leaf.token.text);
    } else {
      out.append(leaf.token.kind == json_kind::null ? "null" : leaf.token.text);
    }
    return std::nullopt;
  }
  if (!_budget.charge(2)) return _budget.exceeded();  // {} or []: an empty record is not free
  const bool object = node.kind != avro_kind::array;
  out.push_back(object ? '{' : '[');
  if (node.kind == avro_kind::record) {
    for (size_t i = 0; i < node.fields.size(); ++i) {
      // The name comes from the schema, not the input: each use of it is charged.
      if (!_budget.charge(node.fields[i].name.size() + 4)) return _budget.exceeded();
      if (i > 0) out.push_back(',');
      append_json_string(out, node.fields[i].name);
      out.push_back(':');
      if (auto err = json(in, *node.fields[i].type, depth + 1, out, node.fields[i].name, e)) {
        return err;
      }
    }
    out.push_back('}');
    return std::nullopt;
  }
  bool first = true;
  for (;;) {  // arrays and maps: blocks of items, ended by a count of 0
    int64_t count = 0;
    if (!in.read_long(count)) return bad("item count cut short");
    if (count == 0) break;
    if (count < 0) {  // a negative count is followed by the block's size in bytes
      int64_t size = 0;
      if (count == INT64_MIN || !in.read_long(size) || size < 0) return bad("bad item block");
      count = -count;
    }
    // Each item is charged: items of a 0-byte type (null, an empty record) cost no input, so
    // the bytes left bound nothing, and each block may claim them again.
    for (int64_t i = 0; i < count; ++i) {
      if (!_budget.charge(1)) return _budget.exceeded();
      if (!first) out.push_back(',');
      first = false;
      std::string_view key;
      if (node.kind == avro_kind::map) {
        if (!in.read_bytes(key)) return bad("map key cut short");
        // A map key is message data: JSON text (and PostgreSQL's json) needs it valid UTF-8.
        if (!simdjson::validate_utf8(key.data(), key.size())) {
          return make_error(error_code::wrong_type, "map key is not valid UTF-8");
        }
        if (!_budget.charge(key.size() + 3)) return _budget.exceeded();
        append_json_string(out, key);
        out.push_back(':');
      }
      if (auto err = json(in, *node.items, depth + 1, out, key, e)) return err;
    }
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
