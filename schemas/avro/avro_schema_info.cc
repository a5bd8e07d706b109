#include "schemas/avro/avro_schema_info.h"

#include <algorithm>
#include <unordered_set>

#include <simdjson.h>

namespace sluice {
namespace {

error bad(std::string message) {
  return make_error(error_code::invalid_avro, "schema: " + std::move(message));
}

std::optional<avro_kind> primitive_named(std::string_view name) {
  if (name == "null") return avro_kind::null;
  if (name == "boolean") return avro_kind::boolean;
  if (name == "int") return avro_kind::int32;
  if (name == "long") return avro_kind::int64;
  if (name == "float") return avro_kind::float32;
  if (name == "double") return avro_kind::float64;
  if (name == "bytes") return avro_kind::bytes;
  if (name == "string") return avro_kind::string;
  return std::nullopt;
}

avro_logical logical_named(std::string_view name) {
  struct entry {
    std::string_view name;
    avro_logical logical;
  };
  static constexpr entry table[] = {
      {"decimal", avro_logical::decimal},
      {"date", avro_logical::date},
      {"time-millis", avro_logical::time_millis},
      {"time-micros", avro_logical::time_micros},
      {"timestamp-millis", avro_logical::timestamp_millis},
      {"timestamp-micros", avro_logical::timestamp_micros},
      {"local-timestamp-millis", avro_logical::local_timestamp_millis},
      {"local-timestamp-micros", avro_logical::local_timestamp_micros},
      {"uuid", avro_logical::uuid},
      {"json", avro_logical::json},
      {"number", avro_logical::number},
      {"time-interval-micros", avro_logical::time_interval_micros},
  };
  for (const entry& e : table) {
    if (e.name == name) return e.logical;
  }
  return avro_logical::none;  // unknown logical types are read as their underlying type
}

// The logical type applies only to the underlying types the spec allows; otherwise (a
// writer's mistake) the underlying type is read as it is, as Avro's spec says.
bool fits(avro_logical logical, const avro_node& n) {
  switch (logical) {
    case avro_logical::none:
      return true;
    case avro_logical::decimal:
      return n.kind == avro_kind::bytes || n.kind == avro_kind::fixed;
    case avro_logical::date:
    case avro_logical::time_millis:
      return n.kind == avro_kind::int32;
    case avro_logical::time_micros:
    case avro_logical::timestamp_millis:
    case avro_logical::timestamp_micros:
    case avro_logical::local_timestamp_millis:
    case avro_logical::local_timestamp_micros:
    case avro_logical::time_interval_micros:
      return n.kind == avro_kind::int64;
    case avro_logical::uuid:
    case avro_logical::json:
    case avro_logical::number:
      return n.kind == avro_kind::string;
    case avro_logical::datetime:
    case avro_logical::interval:
      return n.kind == avro_kind::record;
  }
  return false;
}

}  // namespace

const avro_node* avro_node::nullable_of() const {
  if (kind != avro_kind::union_of || branches.size() != 2) return nullptr;
  if (branches[0]->kind == avro_kind::null) return branches[1];
  if (branches[1]->kind == avro_kind::null) return branches[0];
  return nullptr;
}

const std::string* avro_node::connect_parameter(std::string_view key) const {
  for (const auto& [k, v] : connect_parameters) {
    if (k == key) return &v;
  }
  return nullptr;
}

class avro_schema_parser {
 public:
  avro_schema_parser(avro_schema_info& info, size_t max_depth) : _info(info), _max(max_depth) {}

  result<const avro_node*> parse(simdjson::dom::element e, std::string_view space, size_t depth) {
    if (depth > _max) return make_error(error_code::too_deep, "schema: nested too deep");
    if (e.is_string()) return named(std::string_view(e.get_string().value_unsafe()), space);
    if (e.is_array()) {
      avro_node& n = add(avro_kind::union_of);
      simdjson::dom::array branches;
      if (e.get_array().get(branches)) return bad("a union must be an array");
      for (simdjson::dom::element branch : branches) {
        auto b = parse(branch, space, depth + 1);
        if (!b) return b;
        n.branches.push_back(*b);
        grow(n, **b);
        if (auto err = too_big(n)) return std::move(*err);
      }
      if (n.branches.empty()) return bad("empty union");
      return &n;
    }
    if (!e.is_object()) return bad("a type must be a name, an object or an array");
    return object(e.get_object().value_unsafe(), space, depth);
  }

  // Checked as each node grows, so that a hostile schema stops early.
  std::optional<error> too_big(const avro_node& n) const {
    if (n.reach > _max) {
      return make_error(error_code::too_deep, "schema: nested deeper than " + std::to_string(_max) +
                                                  " through its named types");
    }
    if (n.expanded > max_expanded_nodes) {
      return make_error(error_code::too_large, "schema: its named types expand to more than " +
                                                   std::to_string(max_expanded_nodes) + " types");
    }
    return std::nullopt;
  }

 private:
  // parent holds child (once per reference): counted as often as it is referred to.
  static void grow(avro_node& parent, const avro_node& child) {
    parent.expanded = std::min(parent.expanded + child.expanded, max_expanded_nodes + 1);
    parent.reach = std::max(parent.reach, child.reach + 1);
  }

  avro_node& add(avro_kind kind) {
    avro_node& n = _info._nodes.emplace_back();
    n.kind = kind;
    return n;
  }

  result<const avro_node*> named(std::string_view name, std::string_view space) {
    if (auto kind = primitive_named(name)) return &add(*kind);
    if (name.find('.') == std::string_view::npos && !space.empty()) {
      auto it = _info._named.find(std::string(space) + "." + std::string(name));
      if (it != _info._named.end()) return defined(it->second);
    }
    auto it = _info._named.find(std::string(name));
    if (it != _info._named.end()) return defined(it->second);
    return bad("unknown type \"" + std::string(name.substr(0, 80)) + "\"");
  }

  // A named type used inside its own definition makes a recursive schema: Avro C's generic
  // value class recurses without end on one (a stack overflow), and no Datastream event has
  // one, so it is refused.
  result<const avro_node*> defined(const avro_node* n) {
    for (const avro_node* open : _open) {
      if (open == n)
        return bad("recursive type \"" + n->name.substr(0, 80) + "\" is not supported");
    }
    return n;
  }

  static std::string_view text_of(simdjson::dom::object o, std::string_view key) {
    std::string_view s;
    if (o[key].get_string().get(s)) return {};
    return s;
  }

  static int32_t int_of(simdjson::dom::object o, std::string_view key) {
    int64_t v = 0;
    if (o[key].get_int64().get(v) || v < 0 || v > INT32_MAX) return 0;
    return static_cast<int32_t>(v);
  }

  // simdjson reads the first of two equal keys, Avro C (jansson) the last: a schema with a
  // repeated key would mean one thing to the record check and another to Avro C, which would
  // then read bytes nothing checked. Refused wherever it appears.
  static std::optional<error> repeated_key(simdjson::dom::object o) {
    std::string_view keys[64];  // a schema object has a dozen, custom properties included
    size_t n = 0;
    for (const auto member : o) {
      for (size_t i = 0; i < n; ++i) {
        if (keys[i] == member.key) {
          return bad("an object with two \"" + std::string(member.key.substr(0, 80)) +
                     "\" members");
        }
      }
      if (n < std::size(keys)) {
        keys[n++] = member.key;
      } else {
        return bad("an object with over " + std::to_string(std::size(keys)) + " members");
      }
    }
    return std::nullopt;
  }

  result<const avro_node*> object(simdjson::dom::object o, std::string_view space, size_t depth) {
    if (auto err = repeated_key(o)) return std::move(*err);
    simdjson::dom::element type;
    if (o["type"].get(type)) return bad("an object without \"type\"");
    const std::string_view kind = type.is_string() ? type.get_string().value_unsafe() : "";
    avro_node* n = nullptr;
    std::string inner_space(space);
    if (kind == "record" || kind == "error" || kind == "enum" || kind == "fixed") {
      const std::string_view name = text_of(o, "name");
      if (name.empty()) return bad(std::string(kind) + " without a name");
      std::string full(name);
      if (name.find('.') == std::string_view::npos) {
        const std::string_view ns = o["namespace"].is_string() ? text_of(o, "namespace") : space;
        if (!ns.empty()) full = std::string(ns) + "." + full;
      }
      // The spec lets a name be defined once; Avro C refuses a second definition too, but
      // leaks what it had parsed of the schema when it does (a fuzzing finding), so it never
      // sees one.
      if (_info._named.contains(full))
        return bad("named type " + full.substr(0, 80) + " defined twice");
      inner_space = full.substr(0, full.rfind('.') == std::string::npos ? 0 : full.rfind('.'));
      n = &add(kind == "enum"    ? avro_kind::enumeration
               : kind == "fixed" ? avro_kind::fixed
                                 : avro_kind::record);
      n->name = full;
      _info._named[full] = n;  // before the fields: a record may refer to itself (refused)
      if (n->kind == avro_kind::record) {
        _open.push_back(n);
        simdjson::dom::array fields;
        if (o["fields"].get_array().get(fields)) return bad("record without fields");
        std::unordered_set<std::string_view> names;
        for (simdjson::dom::element f : fields) {
          simdjson::dom::object fo;
          simdjson::dom::element ft;
          if (f.get_object().get(fo) || fo["type"].get(ft)) return bad("a field without type");
          if (auto err = repeated_key(fo)) return std::move(*err);
          auto t = parse(ft, inner_space, depth + 1);
          if (!t) return t;
          const std::string_view field_name = text_of(fo, "name");
          if (!names.insert(field_name).second) {  // views into the parser's document
            return bad("record " + full.substr(0, 80) + " has two fields named \"" +
                       std::string(field_name.substr(0, 80)) + "\"");
          }
          n->fields.push_back({std::string(field_name), *t});
          grow(*n, **t);
          if (auto err = too_big(*n)) return std::move(*err);
        }
        _open.pop_back();
        const std::string_view local = name.substr(name.rfind('.') + 1);
        if (local == "datetime") n->logical = avro_logical::datetime;
        if (local == "interval") n->logical = avro_logical::interval;
      } else if (n->kind == avro_kind::fixed) {
        int64_t size = -1;
        if (o["size"].get_int64().get(size) || size < 0 || size > INT32_MAX) {
          return bad("fixed without a valid size");
        }
        n->size = size;
      } else if (n->kind == avro_kind::enumeration) {
        simdjson::dom::array symbols;
        if (o["symbols"].get_array().get(symbols)) return bad("enum without symbols");
        for (simdjson::dom::element s : symbols) {
          std::string_view sym;
          if (s.get_string().get(sym)) return bad("enum symbols must be strings");
          n->symbols.emplace_back(sym);
        }
      }
    } else if (kind == "array" || kind == "map") {
      simdjson::dom::element items;
      if (o[kind == "array" ? "items" : "values"].get(items))
        return bad(std::string(kind) + " without its element type");
      auto t = parse(items, space, depth + 1);
      if (!t) return t;
      n = &add(kind == "array" ? avro_kind::array : avro_kind::map);
      n->items = *t;
      grow(*n, **t);
      if (auto err = too_big(*n)) return std::move(*err);
    } else if (auto primitive = primitive_named(kind)) {
      n = &add(*primitive);
    } else {
      // {"type": "some.Named"} or {"type": {...}}: the type it names, with no attributes.
      return parse(type, space, depth + 1);
    }
    if (auto err = connect_attributes(o, *n)) return std::move(*err);
    const avro_logical logical = logical_named(text_of(o, "logicalType"));
    if (logical != avro_logical::none && fits(logical, *n)) {
      n->logical = logical;
      n->precision = int_of(o, "precision");
      n->scale = int_of(o, "scale");
    }
    return n;
  }

  // Kafka Connect's attributes (AvroConverter): kept as text for the Debezium decoder.
  static std::optional<error> connect_attributes(simdjson::dom::object o, avro_node& n) {
    n.connect_name = text_of(o, "connect.name");
    n.connect_type = text_of(o, "connect.type");
    simdjson::dom::object parameters;
    if (o["connect.parameters"].get_object().get(parameters)) return std::nullopt;
    if (auto err = repeated_key(parameters)) return err;
    for (const auto member : parameters) {
      std::string_view v;
      if (member.value.get_string().get(v)) continue;  // Connect writes strings only
      n.connect_parameters.emplace_back(member.key, v);
    }
    return std::nullopt;
  }

  avro_schema_info& _info;
  size_t _max;
  std::vector<const avro_node*> _open;  // records whose fields are being read
};

result<std::unique_ptr<avro_schema_info>> avro_schema_info::parse(std::string_view json,
                                                                  size_t max_depth) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto code = parser.parse(json.data(), json.size()).get(root)) {
    return make_error(error_code::invalid_avro,
                      std::string("schema: not JSON: ") + simdjson::error_message(code));
  }
  std::unique_ptr<avro_schema_info> info(new avro_schema_info());
  avro_schema_parser parser_of(*info, max_depth);
  auto node = parser_of.parse(root, "", 0);
  if (!node) return node.err();
  // A few hundred bytes of schema can name a type that names another twice, and so on:
  // Avro C would build (and reset, per record) 2^k value nodes. Bounded (as each node grows,
  // in too_big) before Avro C sees the schema.
  if (auto err = parser_of.too_big(**node)) return std::move(*err);
  info->_root = *node;
  return info;
}

}  // namespace sluice
