#include "schemas/datastream/datastream_decoder.h"
#include "schemas/common/same_text.h"

#include <stdexcept>
#include <string>

namespace sluice {
namespace {

using field = datastream_event::field;

bool present(const field* f) {
  return f && f->token.kind != json_kind::null;
}

std::string in_quotes(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

source_zone zone_or_throw(const std::string& text) {
  auto zone = parse_source_zone(text);
  if (!zone) throw std::invalid_argument("source.timezone: " + zone.err().message);
  return *zone;
}

// A name part of source_metadata: a string, or absent/null (empty). SQL Server's `database`
// may come as a number and its `schema` as a one-element array (seed 000): both accepted.
std::optional<error> name_part(const datastream_event& e, datastream_member name,
                               std::string_view& out) {
  const field* f = e.meta(name);
  if (!present(f)) return std::nullopt;
  if (f->token.kind == json_kind::string || f->token.kind == json_kind::number) {
    out = f->token.text;
    return std::nullopt;
  }
  const auto leaves = e.leaves_of(*f);
  if (f->token.kind == json_kind::array && leaves.size() == 1 &&
      leaves[0].token.kind == json_kind::string) {
    out = leaves[0].token.text;
    return std::nullopt;
  }
  return make_error(error_code::wrong_type,
                    "source_metadata." + std::string(name_of(name)) + " must be a string");
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (c != b[i]) return false;
  }
  return true;
}

}  // namespace

std::optional<error> datastream_decoder::check(const datastream_options& options) {
  auto zone = parse_source_zone(options.source_timezone);
  if (!zone) return in_context("source.timezone", zone.err());
  return std::nullopt;
}

datastream_decoder::datastream_decoder(table_catalog& catalog, datastream_options options)
    : _catalog(catalog),
      _options(std::move(options)),
      _zone(zone_or_throw(_options.source_timezone)),
      _reader(_options.limits.max_depth, _options.limits.max_columns),
      _ordering(_zone),
      _avro(_options.limits) {}

std::optional<error> datastream_decoder::decode(const raw_message& msg, decode_output& out) {
  if (!msg.value) return std::nullopt;  // a Kafka tombstone: nothing to apply
  const std::string_view bytes = *msg.value;
  if (auto err = _options.limits.check_size(bytes)) return err;
  if (is_avro_container(bytes)) return decode_avro(msg, bytes, out);
  if (!bytes.empty() && bytes.front() == '\0') return decode_confluent(msg, bytes, out);
  const simdjson::padded_string_view padded = _buffer.assign(bytes);
  simdjson::ondemand::document doc;
  if (auto code = _parser.iterate(padded).get(doc)) return json_error(code);
  if (auto err = _reader.read(doc, padded, _event)) return err;
  const size_t before = out.changes.size();
  change& c = out.add_change();
  if (auto err = to_change(msg, c)) {
    out.truncate_changes(before);
    return err;
  }
  // The payload became the change's image: the reader writes the next one over an image set
  // aside by an earlier clear(), so their strings' capacity is reused.
  _event.payload = out.recycled_image();
  return std::nullopt;
}

std::optional<error> datastream_decoder::decode_avro(const raw_message& msg, std::string_view bytes,
                                                     decode_output& out) {
  if (auto err = _avro.open(bytes)) return err;
  return decode_records(msg, out);
}

std::optional<error> datastream_decoder::decode_confluent(const raw_message& msg,
                                                          std::string_view bytes,
                                                          decode_output& out) {
  auto frame = parse_confluent_frame(bytes);
  if (!frame) return frame.err();
  const std::string where = "schema id " + std::to_string(frame->id.value());
  if (!_options.registry) {
    return make_error(error_code::unsupported, "a Confluent-framed message (" + where +
                                                   ") but no schema.registry.url is configured");
  }
  auto schema = _options.registry->schema(frame->id);  // waits out an unreachable registry
  if (!schema) return schema.err();
  if ((*schema)->type != "AVRO") {
    return make_error(error_code::unsupported, where + " is a " + (*schema)->type.substr(0, 16) +
                                                   " schema; sluice reads Avro only");
  }
  if (auto err = _avro.open_record((*schema)->text, frame->payload)) {
    return in_context(where, std::move(*err));
  }
  return decode_records(msg, out);
}

std::optional<error> datastream_decoder::decode_records(const raw_message& msg,
                                                        decode_output& out) {
  const size_t before = out.changes.size();
  for (;;) {
    auto more = _avro.next(_event);
    if (more && !*more) break;
    std::optional<error> err;
    if (!more) {
      err = more.err();
    } else {
      change& c = out.add_change();
      err = to_change(msg, c);
      if (!err) {
        c.types = _avro.types();
        _event.payload = out.recycled_image();
        continue;
      }
      err = in_context("record " + std::to_string(_avro.record_index()), std::move(*err));
    }
    out.truncate_changes(before);
    return err;
  }
  return std::nullopt;
}

std::optional<error> datastream_decoder::to_change(const raw_message& msg, change& c) {
  if (!_event.has_metadata) {
    return make_error(error_code::missing_field, "event has no source_metadata");
  }
  if (!_event.has_payload) return make_error(error_code::missing_field, "event has no payload");
  auto entry = table();
  if (!entry) return entry.err();
  auto operation = op();
  if (!operation) return operation.err();
  std::string_view method;
  if (const field* f = _event.top(datastream_member::read_method); present(f)) {
    if (f->token.kind != json_kind::string) {
      return make_error(error_code::wrong_type, "read_method must be a string");
    }
    method = f->token.text;
  }
  const read_method read = classify_read_method(method);
  auto source_ts = source_timestamp();
  if (!source_ts) return source_ts.err();
  if (auto err = key(**entry, c.key)) return err;
  auto seq = _ordering.sequence(_event, detect_source(_event, method), read, *source_ts);
  if (!seq) return seq.err();

  c.op = *operation;
  c.table = *entry;
  c.after = std::move(_event.payload);
  c.seq = std::move(*seq);
  c.source.tx.assign(transaction());
  c.source.source_ts = source_ts->value_or(timestamp_ns{0});
  c.source.read = read;
  assign_origin(c.source.origin, msg);
  return std::nullopt;
}

result<table_entry*> datastream_decoder::table() {
  std::string_view database;
  std::string_view schema;
  std::string_view name;
  if (auto err = name_part(_event, datastream_member::database, database)) return std::move(*err);
  if (database.empty()) {
    if (auto err = name_part(_event, datastream_member::database_id, database)) {
      return std::move(*err);
    }
  }
  if (auto err = name_part(_event, datastream_member::schema, schema)) return std::move(*err);
  for (datastream_member member :
       {datastream_member::table, datastream_member::collection, datastream_member::object_name}) {
    if (auto err = name_part(_event, member, name)) return std::move(*err);
    if (!name.empty()) break;
  }
  if (name.empty()) {
    return make_error(error_code::missing_field,
                      "source_metadata names no table (table, collection or object_name)");
  }
  if (_last_table && _last_table->name.table == name && _last_table->name.schema == schema &&
      _last_table->name.database == database) {
    return _last_table;
  }
  _last_table =
      _catalog.intern(table_name{std::string(database), std::string(schema), std::string(name)});
  return _last_table;
}

result<op_kind> datastream_decoder::op() const {
  const field* deleted = _event.meta(datastream_member::is_deleted);
  if (present(deleted) && deleted->token.kind != json_kind::boolean) {
    return make_error(error_code::wrong_type, "source_metadata.is_deleted must be a boolean");
  }
  const field* type = _event.meta(datastream_member::change_type);
  if (!present(type)) type = _event.meta(datastream_member::mod_type);  // Spanner (seed 000)
  if (present(type)) {
    if (type->token.kind != json_kind::string) {
      return make_error(error_code::wrong_type,
                        "source_metadata." + std::string(type->name) + " must be a string");
    }
    const std::string_view t = type->token.text;
    for (std::string_view upsert : {"INSERT", "UPDATE", "UPDATE-INSERT", "UPSERT", "CREATE"}) {
      if (equals_ignoring_case(t, upsert)) return op_kind::upsert;
    }
    for (std::string_view remove : {"DELETE", "UPDATE-DELETE"}) {
      if (equals_ignoring_case(t, remove)) return op_kind::remove;
    }
    if (!t.empty()) {
      return make_error(
          error_code::unknown_op,
          "unknown source_metadata." + std::string(type->name) + " " + in_quotes(t.substr(0, 64)));
    }
  }
  // Backfill events often carry no change_type: is_deleted decides.
  return present(deleted) && deleted->token.text == "true" ? op_kind::remove : op_kind::upsert;
}

result<std::optional<timestamp_ns>> datastream_decoder::source_timestamp() const {
  const field* f = _event.top(datastream_member::source_timestamp);
  if (!present(f)) return std::optional<timestamp_ns>{};
  // The error is built only when needed: its message would be a heap allocation per event.
  if (f->token.kind != json_kind::number && f->token.kind != json_kind::string) {
    return make_error(error_code::wrong_type, "source_timestamp: must be a string or a number");
  }
  result<timestamp_ns> ts = f->token.kind == json_kind::number
                                ? parse_epoch_millis(f->token.text)
                                : parse_timestamp(f->token.text, _zone);
  if (!ts) return in_context("source_timestamp", ts.err());
  return std::optional<timestamp_ns>{*ts};
}

std::optional<error> datastream_decoder::key(const table_entry& table, row_key& key) {
  // The message's own key names first, then configuration (Oracle events carry none).
  const auto names_some = [](const field* f) {
    return present(f) && (f->token.kind != json_kind::array || f->leaf_count > 0);
  };
  const field* names = _event.meta(datastream_member::primary_keys);
  if (!names_some(names)) names = _event.meta(datastream_member::replication_index);
  std::vector<std::string>& columns = key.columns;
  columns.clear();
  if (present(names) && names->token.kind == json_kind::string) {
    columns.emplace_back(names->token.text);
  } else if (present(names)) {
    if (names->token.kind != json_kind::array) {
      return make_error(error_code::wrong_type,
                        "source_metadata." + std::string(names->name) + " must be an array");
    }
    for (const json_leaf& leaf : _event.leaves_of(*names)) {
      if (leaf.token.kind != json_kind::string) {
        return make_error(error_code::wrong_type, "source_metadata." + std::string(names->name) +
                                                      " must list column names");
      }
      columns.emplace_back(leaf.token.text);
    }
  }
  if (columns.empty()) columns = table.key_columns;
  if (columns.empty()) {  // keyless (SPEC §4)
    key.values.clear();
    key.canonical.clear();
    return std::nullopt;
  }

  std::vector<value>& values = key.values;
  values.clear();
  _key_classes.assign(columns.size(), column_class::unknown);
  for (size_t i = 0; i < columns.size(); ++i) {
    const column_value* found = nullptr;
    for (const column_value& c : _event.payload) {
      if (same_text(c.name, columns[i])) {
        found = &c;
        break;
      }
    }
    if (!found) {
      return make_error(error_code::missing_key, "key column " + in_quotes(columns[i]) +
                                                     " of table " + table.name.qualified() +
                                                     " is not in the payload");
    }
    values.push_back(found->v);
    for (const column_info& info : table.columns) {
      if (same_text(info.name, columns[i])) _key_classes[i] = info.cls;
    }
  }
  if (auto err = canonicalize_key(key, _key_classes)) {
    return in_context("table " + table.name.qualified(), std::move(*err));
  }
  return std::nullopt;
}

std::string_view datastream_decoder::transaction() const {
  for (datastream_member name :
       {datastream_member::tx_id, datastream_member::transaction_id, datastream_member::xid,
        datastream_member::server_transaction_id, datastream_member::gtid}) {
    const field* f = _event.meta(name);
    if (present(f) && f->token.is_scalar() && !f->token.text.empty()) return f->token.text;
  }
  return {};
}

}  // namespace sluice
