#include "schemas/debezium/debezium_decoder.h"
#include "schemas/common/same_text.h"

#include <string>

namespace sluice {
namespace {

using field = debezium_envelope::field;

bool present(const field* f) {
  return f && f->token.kind != json_kind::null;
}

std::string in_quotes(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

// A name part of source: a string, or absent/null (empty).
std::optional<error> name_part(const debezium_envelope& e, std::string_view name,
                               std::string_view& out) {
  const field* f = e.source_field(name);
  if (!present(f)) return std::nullopt;
  if (f->token.kind != json_kind::string) {
    return make_error(error_code::wrong_type, "source." + std::string(name) + " must be a string");
  }
  out = f->token.text;
  return std::nullopt;
}

const value* find_column(const image& row, std::string_view name) {
  for (const column_value& c : row) {
    if (same_text(c.name, name)) return &c.v;
  }
  return nullptr;
}

// The Confluent wire format's magic byte: no JSON text starts with it.
bool framed(std::string_view bytes) {
  return !bytes.empty() && bytes.front() == '\0';
}

bool blank(std::string_view text) {
  for (char c : text) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return true;
}

}  // namespace

debezium_decoder::debezium_decoder(table_catalog& catalog, debezium_options options)
    : _catalog(catalog),
      _options(std::move(options)),
      _reader(_options.limits.max_depth, _options.limits.max_columns, /*schema_wrapper=*/true),
      _values(_options.unavailable_value) {}

std::optional<error> debezium_decoder::parse(std::string_view bytes, std::string_view what,
                                             simdjson::ondemand::document& doc,
                                             simdjson::padded_string_view& padded,
                                             elided_schema* elided) {
  if (auto err = _options.limits.check_size(bytes, what)) return err;
  if (elided) *elided = _reader.known_schema(bytes);
  padded = elided && elided->columns ? _buffer.assign(bytes.substr(0, elided->at),
                                                      bytes.substr(elided->at + elided->bytes))
                                     : _buffer.assign(bytes);
  if (auto code = _parser.iterate(padded).get(doc)) {
    return what == "message" ? json_error(code) : in_context(what, json_error(code));
  }
  return std::nullopt;
}

std::optional<error> debezium_decoder::read_avro(std::string_view bytes, bool key) {
  const std::string_view what = key ? "message key" : "message";
  if (auto err = _options.limits.check_size(bytes, what)) return err;
  auto frame = parse_confluent_frame(bytes);
  if (!frame) return in_context(what, frame.err());
  if (!_options.registry) {
    return make_error(error_code::unsupported, std::string(what) +
                                                   " is Confluent-framed Avro (schema id " +
                                                   std::to_string(frame->id.value()) +
                                                   ") but no schema.registry.url is configured");
  }
  auto schema = _options.registry->schema(frame->id);  // waits out an unreachable registry
  if (!schema) return in_context(what, schema.err());
  if (!_avro) _avro = std::make_unique<debezium_avro_reader>(_options.limits);
  auto err = key ? _avro->read_key(*schema, frame->payload, _key)
                 : _avro->read(*schema, frame->payload, _event);
  if (err)
    return in_context(std::string(what) + " (schema id " + std::to_string(frame->id.value()) + ")",
                      std::move(*err));
  return std::nullopt;
}

std::optional<error> debezium_decoder::decode(const raw_message& msg, decode_output& out) {
  if (!msg.value) return std::nullopt;  // a Kafka tombstone: nothing to apply
  _key_read = false;
  _budget.start(msg.value->size() + (msg.key ? msg.key->size() : 0));
  if (framed(*msg.value)) {
    if (auto err = read_avro(*msg.value, /*key=*/false)) return err;
  } else {
    simdjson::ondemand::document doc;
    simdjson::padded_string_view padded;
    elided_schema elided;
    if (auto err = parse(*msg.value, "message", doc, padded, &elided)) return err;
    if (auto err = _reader.read(doc, padded, _event, elided)) return err;
    if (_event.null_payload) return std::nullopt;  // a tombstone written with schemas
  }
  const size_t before = out.changes.size();
  change& c = out.add_change();
  c.after = out.recycled_image();  // written over in place by decode_row
  bool skip = false;
  auto err = to_change(msg, c, skip);
  if (err || skip) out.truncate_changes(before);
  return err;
}

std::optional<error> debezium_decoder::to_change(const raw_message& msg, change& c, bool& skip) {
  auto operation = op(skip);
  if (!operation) return operation.err();
  if (skip) return std::nullopt;
  if (!_event.has_source) return make_error(error_code::missing_field, "event has no source");
  auto entry = table();
  if (!entry) return entry.err();
  const read_method read =
      _event.top_field("op")->token.text == "r" ? read_method::backfill : read_method::cdc;
  auto source_ts = debezium_source_timestamp(_event);
  if (!source_ts) return source_ts.err();
  auto seq = _ordering.sequence(_event, read, *source_ts);
  if (!seq) return seq.err();

  c.op = *operation;
  c.table = *entry;
  c.types = _types.types_of(*entry, _event.columns_schema);  // shared: no copy per message
  c.seq = std::move(*seq);
  c.source.tx.assign(transaction());
  c.source.source_ts = source_ts->value_or(timestamp_ns{0});
  c.source.read = read;
  assign_origin(c.source.origin, msg);
  if (c.op == op_kind::truncate) {
    c.after.clear();
    return std::nullopt;
  }

  // Upserts carry the row in `after`; deletes keep `before` (the deleted row or its key).
  const bool upsert = c.op == op_kind::upsert;
  const debezium_envelope::row& row = upsert ? _event.after : _event.before;
  if (upsert && !row.present) {
    return make_error(error_code::missing_field,
                      "op " + std::string(_event.top_field("op")->token.text) + " without after");
  }
  auto partial = _values.decode_row(_event, row, upsert ? "after" : "before", c.after, _budget);
  if (!partial) return partial.err();
  c.partial = *partial;
  // From here on the value's views are not used: the message key may take the parser.
  return key(msg, c);
}

result<op_kind> debezium_decoder::op(bool& skip) const {
  const field* f = _event.top_field("op");
  if (!present(f)) {
    return make_error(error_code::missing_field, "event has no op (not a Debezium change event)");
  }
  if (f->token.kind != json_kind::string) {
    return make_error(error_code::wrong_type, "op must be a string");
  }
  const std::string_view op = f->token.text;
  if (op == "c" || op == "u" || op == "r") return op_kind::upsert;
  if (op == "d") return op_kind::remove;
  if (op == "t") return op_kind::truncate;
  if (op == "m") {  // a PostgreSQL logical-decoding message: no row to apply
    skip = true;
    return op_kind::upsert;
  }
  return make_error(error_code::unknown_op, "unknown op " + in_quotes(op.substr(0, 64)));
}

result<table_entry*> debezium_decoder::table() {
  std::string_view database;
  std::string_view schema;
  std::string_view name;
  if (auto err = name_part(_event, "db", database)) return std::move(*err);
  if (auto err = name_part(_event, "schema", schema)) return std::move(*err);
  if (auto err = name_part(_event, "table", name)) return std::move(*err);
  if (name.empty()) {
    if (auto err = name_part(_event, "collection", name)) return std::move(*err);
  }
  if (name.empty()) return make_error(error_code::missing_field, "source names no table");
  if (_last_table && _last_table->name.table == name && _last_table->name.schema == schema &&
      _last_table->name.database == database) {
    return _last_table;
  }
  _last_table =
      _catalog.intern(table_name{std::string(database), std::string(schema), std::string(name)});
  return _last_table;
}

std::string_view debezium_decoder::transaction() const {
  if (const field* f = _event.top_field("transaction");
      present(f) && f->token.kind == json_kind::object) {
    for (const json_leaf& leaf : _event.leaves_of(*f)) {
      if (leaf.name == "id" && !leaf.token.text.empty()) return leaf.token.text;
    }
  }
  for (std::string_view name : {"txId", "gtid", "xid"}) {
    const field* f = _event.source_field(name);
    if (present(f) && f->token.is_scalar() && !f->token.text.empty()) return f->token.text;
  }
  return {};
}

std::optional<error> debezium_decoder::read_message_key(const raw_message& msg) {
  if (_key_read) return std::nullopt;
  _key_read = true;
  _key.clear();
  _key_image.clear();
  if (!msg.key || blank(*msg.key)) return std::nullopt;
  if (framed(*msg.key)) {
    if (auto err = read_avro(*msg.key, /*key=*/true)) return err;
  } else {
    simdjson::ondemand::document doc;
    simdjson::padded_string_view padded;
    if (auto err = parse(*msg.key, "message key", doc, padded)) return err;
    if (auto err = _reader.read_key(doc, padded, _key)) {
      return in_context("message key", std::move(*err));
    }
  }
  auto partial = _values.decode_row(_key, _key.after, "message key", _key_image, _budget);
  if (!partial) return partial.err();
  return std::nullopt;
}

std::optional<error> debezium_decoder::key(const raw_message& msg, change& c) {
  const table_entry& table = *c.table;
  _key_columns.clear();
  if (table.key_configured) {
    _key_columns = table.key_columns;
  } else if (msg.key) {
    if (auto err = read_message_key(msg)) return err;
    for (const field& f : _key.after.columns)
      _key_columns.emplace_back(f.name);
  }
  if (_key_columns.empty()) _key_columns = table.key_columns;  // learned by the catalog
  if (_key_columns.empty()) return std::nullopt;               // keyless (SPEC §4)

  std::vector<value>& values = c.key.values;
  values.clear();
  _key_classes.assign(_key_columns.size(), column_class::unknown);
  for (size_t i = 0; i < _key_columns.size(); ++i) {
    const std::string& name = _key_columns[i];
    const value* found = find_column(c.after, name);
    if (!found) {
      if (auto err = read_message_key(msg)) return err;
      found = find_column(_key_image, name);
    }
    if (!found) {
      return make_error(error_code::missing_key,
                        "key column " + in_quotes(name) + " of table " + table.name.qualified() +
                            " is in neither the " + (c.op == op_kind::upsert ? "after" : "before") +
                            " image nor the message key");
    }
    values.push_back(*found);
    for (const column_info& info : table.columns) {
      if (same_text(info.name, name)) _key_classes[i] = info.cls;
    }
  }
  c.key.columns = _key_columns;
  if (auto err = canonicalize_key(c.key, _key_classes)) {
    return in_context("table " + table.name.qualified(), std::move(*err));
  }
  return std::nullopt;
}

}  // namespace sluice
