#include "schemas/goldengate/goldengate_decoder.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "schemas/common/same_text.h"
#include "schemas/goldengate/goldengate_metadata.h"

namespace sluice {
namespace {

using field = goldengate_field;

utc_offset zone_or_throw(const std::string& text) {
  auto zone = parse_utc_offset(text);
  if (!zone) throw std::invalid_argument("source.timezone: " + zone.err().message);
  return *zone;
}

std::string in_quotes(std::string_view s) {
  return "\"" + std::string(s.substr(0, 64)) + "\"";
}

const column_value* find_column(const image& img, std::string_view name) {
  for (const column_value& c : img) {
    if (same_text(c.name, name) && !c.v.is_absent()) return &c;
  }
  return nullptr;
}

// Copies the scalar `name` of an object member's leaves into out, if it is a string.
void copy_leaf(const goldengate_record& r, const goldengate_record::member* m,
               std::string_view name, std::string& out) {
  if (!m || m->token.kind != json_kind::object) return;
  for (const json_leaf& leaf : r.leaves_of(*m)) {
    if (leaf.name == name && leaf.token.kind == json_kind::string) {
      out.assign(leaf.token.text);
      return;
    }
  }
}

bool same_columns(const std::vector<column_types::column>& a,
                  const std::vector<column_types::column>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.name == y.name && x.type == y.type && x.source_type == y.source_type;
  });
}

constexpr std::string_view learned_from_metadata = "goldengate OBJECT_METADATA";

}  // namespace

std::optional<error> goldengate_decoder::check(const goldengate_options& options) {
  auto zone = parse_utc_offset(options.source_timezone);
  if (!zone) return in_context("source.timezone", zone.err());
  return goldengate_names::check(options.field_names, options.op_names);
}

goldengate_decoder::goldengate_decoder(table_catalog& catalog, goldengate_options options)
    : _catalog(catalog),
      _options(std::move(options)),
      _zone(zone_or_throw(_options.source_timezone)),
      _names(_options.field_names, _options.op_names),
      _reader(_names, _options.limits.max_depth, _options.limits.max_columns),
      _schemas(_names, _options.limits.max_columns) {}

bool goldengate_decoder::apply_schema(table_entry& t,
                                      const std::vector<column_types::column>& schema) {
  if (t.columns.empty()) {
    auto types = std::make_shared<column_types>();
    types->columns = schema;
    if (!t.types || !same_columns(t.types->columns, types->columns)) t.types = std::move(types);
    return false;
  }
  std::vector<column_info> columns = t.columns;
  if (!refine_types(columns, schema)) return false;
  learn_shape(t, std::move(columns), t.key_columns);
  return true;
}

std::optional<error> goldengate_decoder::decode(const raw_message& msg, decode_output& out) {
  if (!msg.value) return std::nullopt;  // a Kafka tombstone: nothing to apply
  const std::string_view bytes = *msg.value;
  if (auto err = _options.limits.check_size(bytes)) return err;
  if (auto err = read(bytes)) return err;

  const slot& op_type = _record.get(field::op_type);
  if (!op_type.given()) {
    // JSON Schema records carry no op_type (seed 003): recognized by their shape.
    if (_record.find("$schema") || (_record.find("id") && _record.find("properties"))) {
      return on_schema(msg, out);
    }
    return make_error(error_code::missing_field,
                      "record has no " + label(field::op_type) +
                          " and is not a JSON Schema record ($schema, or id and properties)");
  }
  if (op_type.token.kind != json_kind::string) {
    return make_error(error_code::wrong_type, label(field::op_type) + " must be a string");
  }
  const std::string_view type = op_type.token.text;
  if (type == "STREAM_METADATA") {
    on_stream_metadata();
    return std::nullopt;
  }
  if (type == "OBJECT_METADATA") return on_object_metadata(msg, out);
  if (type == "DDL") return on_ddl(msg, out);
  if (const auto op = _names.op(type)) return on_dml(*op, msg, out);
  std::string expected;
  for (auto op : {goldengate_op::insert, goldengate_op::update, goldengate_op::remove,
                  goldengate_op::upsert}) {
    expected +=
        std::string(expected.empty() ? "" : ", ") + "\"" + std::string(_names.sent_op(op)) + "\"";
  }
  return make_error(error_code::unknown_op, "unknown " + label(field::op_type) + " " +
                                                in_quotes(type) + " (expected " + expected +
                                                ", STREAM_METADATA, OBJECT_METADATA or DDL)");
}

std::optional<error> goldengate_decoder::read(std::string_view bytes) {
  const simdjson::padded_string_view padded = _buffer.assign(bytes);
  simdjson::ondemand::document doc;
  if (auto code = _parser.iterate(padded).get(doc)) return json_error(code);
  if (_reader.read_plain(doc, padded, _record)) return std::nullopt;
  // An error or a CloudEvents envelope: read again the general way, which says which (a failed
  // document may not be rewound, so it is iterated afresh).
  if (auto code = _parser.iterate(padded).get(doc)) return json_error(code);
  if (auto err = _reader.read(doc, padded, /*unwrap=*/true, _record)) return err;
  if (!_record.data_text) return std::nullopt;
  // CloudEvents data sent as a JSON string: its text lives in the parser's string buffer,
  // which the next parse reuses, so it is copied first.
  const simdjson::padded_string_view data = _data_buffer.assign(*_record.data_text);
  simdjson::ondemand::document inner;
  if (auto code = _parser.iterate(data).get(inner)) {
    return in_context("CloudEvents data", json_error(code));
  }
  if (auto err = _reader.read(inner, data, /*unwrap=*/false, _record)) {
    return in_context("CloudEvents data", *err);
  }
  return std::nullopt;
}

std::optional<error> goldengate_decoder::on_schema(const raw_message& msg, decode_output& out) {
  const goldengate_record::member* id = _record.find("id");
  if (!id || id->token.kind != json_kind::string || id->token.text.empty()) return std::nullopt;
  // A table's schema, cached anew: a table already seen (its OBJECT_METADATA may have come
  // first) gets the types now.
  const std::optional<table_name> name = _schemas.store(id->token.text, _record.raw);
  if (!name) return std::nullopt;
  auto seen = _seen.find(*name);
  if (seen == _seen.end() || !apply_schema(*seen->second, *_schemas.columns(*name))) {
    return std::nullopt;
  }
  table_entry& t = *seen->second;
  auto last = _metadata_seq.find(&t);
  if (last == _metadata_seq.end()) return std::nullopt;  // learned elsewhere: not re-sent
  catalog_update update;
  update.table = t.name;
  update.columns = t.columns;
  update.key_columns = t.key_columns;
  update.learned_from = std::string(learned_from_metadata);
  update.seq = last->second;
  update.origin = message_origin{std::string(msg.topic), msg.partition, msg.offset, msg.timestamp};
  out.catalog.push_back(std::move(update));
  return std::nullopt;
}

void goldengate_decoder::on_stream_metadata() {
  const auto* producer = _record.find("producer");
  const auto* database = _record.find("database");
  copy_leaf(_record, producer, "name", _stream.producer_name);
  copy_leaf(_record, producer, "version", _stream.producer_version);
  copy_leaf(_record, database, "name", _stream.database_name);
  copy_leaf(_record, database, "version", _stream.database_version);
  copy_leaf(_record, database, "timeZone", _stream.database_time_zone);
  ++_stream.records;
}

std::optional<error> goldengate_decoder::on_object_metadata(const raw_message& msg,
                                                            decode_output& out) {
  auto entry = table();
  if (!entry) return entry.err();
  if (!_record.has_columns) {
    if (_record.find("columns")) {
      return make_error(error_code::wrong_type, "OBJECT_METADATA columns must be an object");
    }
    return make_error(error_code::missing_field, "OBJECT_METADATA record has no columns");
  }
  if (_record.columns.empty()) {
    return make_error(error_code::missing_field, "OBJECT_METADATA record lists no columns");
  }
  auto ts = op_ts();
  if (!ts) return ts.err();
  auto seq = sequence(*ts, msg.offset);
  if (!seq) return seq.err();

  learned_shape shape = shape_of(_record.columns, schema_columns((*entry)->name));
  catalog_update update;
  update.table = (*entry)->name;
  update.columns = shape.columns;
  update.key_columns = shape.key_columns;
  update.learned_from = std::string(learned_from_metadata);
  update.seq = *seq;
  update.origin = message_origin{std::string(msg.topic), msg.partition, msg.offset, msg.timestamp};

  // Re-sent (on every partition) or late records: an older one leaves the entry alone.
  csn& last = _metadata_seq[*entry];
  if (seq->empty() || last.empty() || *seq >= last) {
    learn_shape(**entry, std::move(shape.columns), std::move(shape.key_columns));
    if (!seq->empty()) last = std::move(*seq);
  }
  out.catalog.push_back(std::move(update));
  return std::nullopt;
}

std::optional<error> goldengate_decoder::on_ddl(const raw_message& msg, decode_output& out) {
  if (!_record.has_ddl) {
    if (_record.find("ddl")) return make_error(error_code::wrong_type, "ddl must be an object");
    return make_error(error_code::missing_field, "DDL record has no ddl");
  }
  if (!_record.ddl_statement) {
    return make_error(error_code::missing_field, "DDL record has no ddl.statement");
  }
  ddl_record record;
  if (!_record.ddl_qualified.empty()) {
    auto name = parse_qual_table(_record.ddl_qualified);
    if (!name) return in_context("ddl.object", name.err());
    record.table = std::move(*name);
  } else if (!_record.ddl_object.empty()) {
    record.table = table_name{std::string(_record.ddl_catalog), std::string(_record.ddl_schema),
                              std::string(_record.ddl_object)};
  } else if (const slot& q = _record.get(field::qual_table);
             q.given() && q.token.kind == json_kind::string && !q.token.text.empty()) {
    auto name = parse_qual_table(q.token.text);
    if (!name) return name.err();
    record.table = std::move(*name);
  }
  auto ts = op_ts();
  if (!ts) return ts.err();
  auto seq = sequence(*ts, msg.offset);
  if (!seq) return seq.err();
  record.statement = std::string(*_record.ddl_statement);
  record.seq = std::move(*seq);
  record.source_ts = ts->value_or(timestamp_ns{0});
  record.origin = message_origin{std::string(msg.topic), msg.partition, msg.offset, msg.timestamp};
  out.ddl.push_back(std::move(record));
  return std::nullopt;
}

std::optional<error> goldengate_decoder::on_dml(goldengate_op op, const raw_message& msg,
                                                decode_output& out) {
  const std::string_view op_name = canonical_name(op);
  auto entry = table();
  if (!entry) return entry.err();
  table_entry& t = **entry;
  auto ts = op_ts();
  if (!ts) return ts.err();
  auto tx = transaction();
  if (!tx) return tx.err();
  // pos is opaque (seed 003: store exactly, do not parse); only its type is checked.
  if (const slot& pos = _record.get(field::pos); pos.given() && !pos.token.is_scalar()) {
    return make_error(error_code::wrong_type, label(field::pos) + " must be a string");
  }
  for (field f : {field::before, field::after}) {
    const slot& s = _record.get(f);
    if (s.given() && s.token.kind != json_kind::object) {
      return make_error(error_code::wrong_type, label(f) + " must be an object");
    }
  }
  const bool has_before = _record.get(field::before).given();
  const bool has_after = _record.get(field::after).given();
  auto seq = sequence(*ts, msg.offset);
  if (!seq) return seq.err();
  if (seq->empty()) {
    return make_error(error_code::bad_csn, std::string(op_name) + " record has neither " +
                                               label(field::csn) + " nor " + label(field::op_ts) +
                                               ": it cannot be ordered");
  }
  auto columns = key_columns(t);
  if (!columns) return columns.err();
  const std::vector<std::string>& key = **columns;
  const auto missing_image = [&](field f) {
    return make_error(error_code::missing_field,
                      std::string(op_name) + " record has no " + label(f) + " image");
  };
  switch (op) {
    case goldengate_op::insert:
    case goldengate_op::upsert:
    case goldengate_op::update:
      if (!has_after) return missing_image(field::after);
      break;
    case goldengate_op::remove:
      if (!has_before) return missing_image(field::before);
      break;
  }

  // Written into a change set aside by an earlier clear(); on error it goes back unused.
  const size_t first = out.changes.size();
  change& c = out.add_change();
  if (auto err = fill_dml(op, t, key, has_before, c)) {
    out.truncate_changes(first);
    return err;
  }
  // The image became the change's: the reader writes the next record's over an image set
  // aside by an earlier clear(), so its strings' capacity is reused.
  image& used = op == goldengate_op::remove ? _record.before : _record.after;
  c.after = std::move(used);
  used = out.recycled_image();
  c.table = &t;
  c.types = t.types;
  if (auto err = _binary.decode(c)) {
    out.truncate_changes(first);
    return err;
  }
  c.seq = std::move(*seq);
  c.source.tx.assign(*tx);
  c.source.source_ts = ts->value_or(timestamp_ns{0});
  c.source.read = read_method::cdc;
  assign_origin(c.source.origin, msg);
  return std::nullopt;
}

std::optional<error> goldengate_decoder::fill_dml(goldengate_op op, const table_entry& t,
                                                  const std::vector<std::string>& key,
                                                  bool has_before, change& c) {
  switch (op) {
    case goldengate_op::insert:
    case goldengate_op::upsert:
      if (!key.empty()) {
        if (auto err = key_of(t, key, _record.after, nullptr, field::after, c.key)) {
          return err;
        }
      }
      break;
    case goldengate_op::update: {
      const image* before = has_before ? &_record.before : nullptr;
      if (!key.empty()) {
        if (auto err = key_of(t, key, _record.after, before, field::after, c.key)) {
          return err;
        }
        if (before && has_all(*before, key)) {
          if (auto err = key_of(t, key, *before, nullptr, field::before, _old_key)) {
            return err;
          }
          if (_old_key.canonical != c.key.canonical) c.old_key = _old_key;  // a key change
        }
      }
      if (before) add_missing_columns(_record.after, _record.before);
      c.partial = !covers_table(t, _record.after);
      break;
    }
    case goldengate_op::remove:
      if (!key.empty()) {
        if (auto err = key_of(t, key, _record.before, nullptr, field::before, c.key)) {
          return err;
        }
      }
      c.op = op_kind::remove;
      break;
  }
  return std::nullopt;
}

std::optional<error> goldengate_decoder::key_of(const table_entry& t,
                                                const std::vector<std::string>& columns,
                                                const image& img, const image* fallback,
                                                goldengate_field which, row_key& out) {
  out.columns.assign(columns.begin(), columns.end());
  out.values.resize(columns.size());
  _key_classes.assign(columns.size(), column_class::unknown);
  for (size_t i = 0; i < columns.size(); ++i) {
    const column_value* found = find_column(img, columns[i]);
    if (!found && fallback) found = find_column(*fallback, columns[i]);
    if (!found) {
      return make_error(error_code::missing_key, "key column " + in_quotes(columns[i]) +
                                                     " of table " + t.name.qualified() +
                                                     " is not in the " + label(which) + " image");
    }
    out.values[i] = found->v;
    for (const column_info& info : t.columns) {
      if (same_text(info.name, columns[i])) _key_classes[i] = info.cls;
    }
  }
  if (auto err = canonicalize_key(out, _key_classes)) {
    return in_context("table " + t.name.qualified(), std::move(*err));
  }
  return std::nullopt;
}

bool goldengate_decoder::has_all(const image& img, const std::vector<std::string>& columns) const {
  for (const std::string& c : columns) {
    if (!find_column(img, c)) return false;
  }
  return true;
}

bool goldengate_decoder::covers_table(const table_entry& t, const image& img) {
  if (t.columns.empty() || img.size() < t.columns.size()) return false;
  // Full images usually list the table's columns in the table's order: then no sort.
  if (img.size() == t.columns.size()) {
    bool in_order = true;
    for (size_t i = 0; in_order && i < img.size(); ++i) {
      in_order = !img[i].v.is_absent() && img[i].name == t.columns[i].name;
    }
    if (in_order) return true;
  }
  _name_scratch.clear();
  for (const column_value& c : img) {
    if (!c.v.is_absent()) _name_scratch.push_back(c.name);
  }
  std::sort(_name_scratch.begin(), _name_scratch.end());
  for (const column_info& c : t.columns) {
    if (!std::binary_search(_name_scratch.begin(), _name_scratch.end(), c.name)) return false;
  }
  return true;
}

void goldengate_decoder::add_missing_columns(image& after, image& before) {
  // A before image of a few columns (the key and what changed) is looked up directly.
  constexpr size_t direct_up_to = 4;
  if (before.size() <= direct_up_to) {
    const size_t given = after.size();
    for (column_value& c : before) {
      bool found = false;
      for (size_t i = 0; !found && i < given; ++i)
        found = after[i].name == c.name;
      if (!found) after.push_back(std::move(c));
    }
    return;
  }
  _name_scratch.clear();
  for (const column_value& c : after)
    _name_scratch.push_back(c.name);
  std::sort(_name_scratch.begin(), _name_scratch.end());
  image extra;  // appended after the scan: growing `after` would move the names viewed above
  for (column_value& c : before) {
    if (!std::binary_search(_name_scratch.begin(), _name_scratch.end(), c.name)) {
      extra.push_back(std::move(c));
    }
  }
  for (column_value& c : extra)
    after.push_back(std::move(c));
}

}  // namespace sluice
