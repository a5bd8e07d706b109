#include "schemas/datastream/datastream_avro_reader.h"

#include <charconv>

#include <simdjson.h>

#include "schemas/avro/avro_allocator.h"
#include "schemas/avro/avro_column_type.h"

namespace sluice {
namespace {

error bad(std::string message) {
  return make_error(error_code::invalid_avro, std::move(message));
}

// The record a field holds, ["null", record] included.
const avro_node* record_of(const avro_node* n) {
  if (n->nullable_of()) n = n->nullable_of();
  return n->kind == avro_kind::record ? n : nullptr;
}

json_kind kind_of(const value& v) {
  switch (v.kind) {
    case value_kind::null:
    case value_kind::absent:
      return json_kind::null;
    case value_kind::boolean:
      return json_kind::boolean;
    case value_kind::number:
      return json_kind::number;
    case value_kind::json:
      return v.text.starts_with('[') ? json_kind::array : json_kind::object;
    case value_kind::string:
    case value_kind::bytes:
      break;
  }
  return json_kind::string;
}

}  // namespace

datastream_avro_reader::datastream_avro_reader(const decode_limits& limits)
    : _limits(limits),
      _budget(limits.max_message_bytes),
      _container(limits.max_message_bytes),
      _values(limits.max_depth, _budget) {
  // No single allocation of a record can exceed the message it is read from, nor the block it
  // is read from once decompressed (bounded by the same limit: _container).
  install_avro_allocator(limits.max_message_bytes + 4096);
}

result<std::unique_ptr<datastream_avro_reader::layout>> datastream_avro_reader::build(
    std::string_view schema_json) const {
  auto l = std::make_unique<layout>();
  auto info = avro_schema_info::parse(schema_json, _limits.max_depth);
  if (!info) return info.err();
  l->info = std::move(*info);
  const avro_node& root = l->info->root();
  if (root.kind != avro_kind::record) return bad("schema: an event must be a record");
  for (const avro_node::field& f : root.fields) {
    role r = role::ignored;
    datastream_member m{};
    if (f.name == "source_metadata") {
      r = role::metadata;
      l->metadata = record_of(f.type);
      l->metadata_type = f.type;
      if (!l->metadata) return bad("schema: source_metadata must be a record");
    } else if (f.name == "payload") {
      r = role::payload;
      l->payload = record_of(f.type);
      l->payload_type = f.type;
      if (!l->payload) return bad("schema: payload must be a record");
    } else if (auto member = datastream_member_named(f.name)) {
      r = role::envelope;
      m = *member;
    }
    l->top_roles.push_back(r);
    l->top_members.push_back(m);
  }
  if (l->metadata) {
    for (const avro_node::field& f : l->metadata->fields) {
      l->meta_members.push_back(datastream_member_named(f.name));
    }
  }
  if (l->payload) {
    if (l->payload->fields.size() > _limits.max_columns) {
      return make_error(error_code::too_many_columns,
                        "payload has " + std::to_string(l->payload->fields.size()) +
                            " columns, more than " + std::to_string(_limits.max_columns));
    }
    auto types = std::make_shared<column_types>();
    for (const avro_node::field& f : l->payload->fields) {
      types->columns.push_back({f.name, avro_column_type(*f.type), {}});
    }
    l->types = std::move(types);
  }
  // Avro C checks the schema too (names, defaults): a schema it refuses is refused here.
  auto avro = avro_record_schema::parse(schema_json);
  if (!avro) return avro.err();
  return l;
}

std::optional<error> datastream_avro_reader::open(std::string_view bytes) {
  _layout = nullptr;
  _single = false;
  _budget.start(bytes.size());
  _inflated = 0;
  if (auto err = _container.open(bytes)) return err;
  return use_schema(_container.schema_json());
}

std::optional<error> datastream_avro_reader::open_record(std::string_view schema_json,
                                                         std::string_view body) {
  _layout = nullptr;
  _single = true;
  _single_pending = true;
  _body = body;
  _budget.start(body.size());
  return use_schema(schema_json);
}

std::optional<error> datastream_avro_reader::use_schema(std::string_view schema) {
  // Most messages repeat the previous one's schema: one compare, no hash.
  if (_last && _last->first == schema) {
    _layout = _last->second.get();
    return std::nullopt;
  }
  // A reused key: a new string per message would allocate.
  _key.assign(schema);
  auto it = _layouts.find(_key);
  if (it == _layouts.end()) {
    auto built = build(schema);
    if (!built) return built.err();
    ++_builds;
    if (_layouts.size() >= max_cached_schemas) _layouts.clear();
    it = _layouts.emplace(_key, std::move(*built)).first;
  }
  _last = &*it;  // unordered_map nodes are stable until erased (clear() above)
  _layout = it->second.get();
  return std::nullopt;
}

value& datastream_avro_reader::kept() {
  if (_texts_used == _texts.size()) _texts.emplace_back();
  return _texts[_texts_used++];
}

std::string_view datastream_avro_reader::keep(std::string_view text) {
  value& v = kept();
  v.text.assign(text);
  return v.text;
}

result<bool> datastream_avro_reader::next(datastream_event& out) {
  if (!_layout) return bad("no open container");
  std::string_view record;
  if (_single) {
    if (!_single_pending) return false;
    _single_pending = false;
    record = _body;
  } else {
    auto more = _container.next(record);
    if (!more || !*more) return more;
    // A compressed block's records are input too: the budget grows as they inflate.
    _budget.add_input(_container.decompressed_bytes() - _inflated);
    _inflated = _container.decompressed_bytes();
  }
  if (!_budget.charge(decode_budget::record_units)) {
    return in_context("record " + std::to_string(record_index()), _budget.exceeded());
  }
  out.clear();
  _texts_used = 0;
  const auto where = [this] { return "record " + std::to_string(record_index()); };
  avro_binary_cursor in(record);
  const std::vector<avro_node::field>& fields = _layout->info->root().fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    std::optional<error> err;
    switch (_layout->top_roles[i]) {
      case role::ignored:
        err = _values.skip(in, *fields[i].type);
        break;
      case role::envelope:
        err = read_member(in, *fields[i].type, fields[i].name, out.envelope,
                          _layout->top_members[i], out);
        break;
      case role::metadata:
        err = read_metadata(in, out);
        break;
      case role::payload:
        err = read_payload(in, out);
        break;
    }
    if (err) return in_context(where() + " " + fields[i].name, std::move(*err));
  }
  if (_single && in.left() != 0) {
    return bad(where() + ": " + std::to_string(in.left()) + " bytes after the record");
  }
  if (!_single) _container.consumed(record.size() - in.left());
  return true;
}

std::optional<error> datastream_avro_reader::read_metadata(avro_binary_cursor& in,
                                                           datastream_event& out) {
  auto node = avro_value_reader::branch(in, *_layout->metadata_type);
  if (!node) return node.err();
  if ((*node)->kind == avro_kind::null) return std::nullopt;  // null: no source_metadata
  if ((*node)->kind != avro_kind::record) return bad("source_metadata is not a record");
  out.has_metadata = true;
  const std::vector<avro_node::field>& fields = (*node)->fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    std::optional<error> err;
    if (i < _layout->meta_members.size() && _layout->meta_members[i]) {
      err = read_member(in, *fields[i].type, fields[i].name, out.metadata,
                        *_layout->meta_members[i], out);
    } else {
      err = _values.skip(in, *fields[i].type);
    }
    if (err) return in_context(fields[i].name, std::move(*err));
  }
  return std::nullopt;
}

std::optional<error> datastream_avro_reader::read_payload(avro_binary_cursor& in,
                                                          datastream_event& out) {
  auto node = avro_value_reader::branch(in, *_layout->payload_type);
  if (!node) return node.err();
  if ((*node)->kind == avro_kind::null) return std::nullopt;  // null: no payload
  if ((*node)->kind != avro_kind::record) return bad("payload is not a record");
  out.has_payload = true;
  image_writer columns(out.payload);
  for (const avro_node::field& f : (*node)->fields) {
    column_value& c = columns.next();
    // The name comes from the schema: a record of 0-byte columns costs it, not the input.
    if (!_budget.charge(f.name.size())) return _budget.exceeded();
    if (c.name != f.name) c.name.assign(f.name);
    if (auto err = _values.read(in, *f.type, c.v)) {
      return in_context("column \"" + f.name + "\"", std::move(*err));
    }
  }
  columns.finish();
  return std::nullopt;
}

std::optional<error> datastream_avro_reader::read_member(
    avro_binary_cursor& in, const avro_node& node, std::string_view name,
    datastream_event::members& into, datastream_member m, datastream_event& out) {
  datastream_event::field* f = into.claim(m);
  if (!f) return bad("repeated member");
  f->name = name;
  f->first_leaf = static_cast<uint32_t>(out.leaves.size());
  f->leaf_count = 0;
  // The branch a union takes, read on a copy: a scalar is then read whole from `in`.
  avro_binary_cursor peek = in;
  auto resolved = avro_value_reader::branch(peek, node);
  if (!resolved) return resolved.err();
  const avro_node& n = **resolved;
  // A logical record (datetime, interval) reads as one scalar text.
  const bool container = (n.kind == avro_kind::record && n.logical == avro_logical::none) ||
                         n.kind == avro_kind::array || n.kind == avro_kind::map;
  if (!container) {
    // Read straight into a slot kept for the record: no copy.
    value& v = kept();
    if (m == datastream_member::source_timestamp && n.kind == avro_kind::int64 &&
        n.logical == avro_logical::timestamp_millis) {
      // Datastream's timestamp-millis, kept as the epoch milliseconds the decoder reads
      // (a JSON number there): no text to write and parse back.
      int64_t millis = 0;
      in = peek;
      if (!in.read_long(millis)) return bad("source_timestamp cut short");
      char buf[24];
      const auto end = std::to_chars(buf, buf + sizeof buf, millis).ptr;
      v.kind = value_kind::number;
      v.text.assign(buf, end);
    } else if (auto err = _values.read(in, node, v)) {
      return err;
    }
    f->token.kind = kind_of(v);
    f->token.text = v.text;
    return std::nullopt;
  }
  // An array or record: nothing reads its text (the JSON reader's would be its raw JSON), only
  // its kind and its direct scalars, the leaves (sort_keys, primary_keys, ts), read from `in`
  // past the union's branch; nested arrays and records are read whole and not kept.
  in = peek;
  f->token.kind = n.kind == avro_kind::array ? json_kind::array : json_kind::object;
  f->token.text = {};
  const auto leaf = [&](std::string_view leaf_name, const avro_node& type) -> std::optional<error> {
    value& v = kept();
    if (auto err = _values.read(in, type, v)) return err;
    const json_kind kind = kind_of(v);
    if (kind == json_kind::array || kind == json_kind::object) return std::nullopt;
    json_leaf& l = out.leaves.emplace_back();
    l.name = leaf_name;
    l.token.kind = kind;
    l.token.text = v.text;
    return std::nullopt;
  };
  if (n.kind == avro_kind::record) {
    for (const avro_node::field& child : n.fields) {
      if (auto err = leaf(child.name, *child.type)) return err;
    }
  } else if (n.kind == avro_kind::array || n.kind == avro_kind::map) {
    for (;;) {
      auto count = avro_value_reader::item_block(in);
      if (!count) return count.err();
      if (*count == 0) break;
      for (int64_t i = 0; i < *count; ++i) {
        std::string_view key;
        if (n.kind == avro_kind::map) {
          if (!in.read_bytes(key)) return bad("map key cut short");
          if (!simdjson::validate_utf8(key.data(), key.size())) return bad("map key not UTF-8");
          if (!_budget.charge(key.size())) return _budget.exceeded();
        }
        if (auto err = leaf(n.kind == avro_kind::map ? keep(key) : std::string_view(), *n.items)) {
          return err;
        }
      }
    }
  }
  f->leaf_count = static_cast<uint32_t>(out.leaves.size()) - f->first_leaf;
  return std::nullopt;
}

}  // namespace sluice
