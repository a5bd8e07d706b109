#include "schemas/dsql/dsql_decoder.h"

#include <string>

#include "schemas/common/position_parser.h"
#include "schemas/debezium/debezium_value_decoder.h"

namespace sluice {
namespace {

using field = debezium_envelope::field;

bool present(const field* f) {
  return f && f->token.kind != json_kind::null;
}

std::string in_quotes(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

std::string excerpt(std::string_view text) {
  return text.size() <= 64 ? std::string(text) : std::string(text.substr(0, 64)) + "...";
}

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
    if (c.name == name) return &c.v;
  }
  return nullptr;
}

// The name users give the table in tables.<source> keys.
std::string config_name(const table_name& t) {
  return t.schema.empty() ? t.qualified() : t.schema + "." + t.table;
}

}  // namespace

dsql_decoder::dsql_decoder(table_catalog& catalog, dsql_options options)
    : _catalog(catalog),
      _options(std::move(options)),
      _reader(_options.limits.max_depth, _options.limits.max_columns, /*schema_wrapper=*/false) {}

std::optional<error> dsql_decoder::decode(const raw_message& msg, decode_output& out) {
  if (!msg.value) return std::nullopt;  // a Kafka tombstone: nothing to apply
  const std::string_view bytes = *msg.value;
  if (auto err = _options.limits.check_size(bytes)) return err;
  const simdjson::padded_string_view padded = _buffer.assign(bytes);
  simdjson::ondemand::document doc;
  if (auto code = _parser.iterate(padded).get(doc)) return json_error(code);
  if (auto err = _reader.read(doc, padded, _record)) return err;
  auto c = to_change(msg);
  if (!c) return c.err();
  out.changes.push_back(std::move(*c));
  return std::nullopt;
}

result<change> dsql_decoder::to_change(const raw_message& msg) {
  if (auto err = record_type()) return std::move(*err);
  const field* op = _record.top_field("op");
  if (!present(op)) return make_error(error_code::missing_field, "DSQL record has no op");
  if (op->token.kind != json_kind::string) {
    return make_error(error_code::wrong_type, "op must be a string");
  }
  change c;
  if (op->token.text == "c" || op->token.text == "u") {
    c.op = op_kind::upsert;
  } else if (op->token.text == "d") {
    c.op = op_kind::remove;
  } else {
    return make_error(error_code::unknown_op, "unknown op " + in_quotes(excerpt(op->token.text)));
  }
  if (!_record.has_source) {
    return make_error(error_code::missing_field, "DSQL record has no source");
  }
  auto entry = table();
  if (!entry) return entry.err();
  auto ts = commit_time();
  if (!ts) return ts.err();
  std::string_view tx;
  if (const field* f = _record.source_field("txId"); present(f)) {
    if (!f->token.is_scalar()) {
      return make_error(error_code::wrong_type, "source.txId must be a string");
    }
    tx = f->token.text;
  }

  c.table = *entry;
  c.seq = _builder.add(int64_t{1}).add(ts->value()).add(tx).build();
  c.source.tx = std::string(tx);
  c.source.source_ts = *ts;
  c.source.read = read_method::cdc;
  c.source.origin =
      message_origin{std::string(msg.topic), msg.partition, msg.offset, msg.timestamp};
  const bool upsert = c.op == op_kind::upsert;
  const debezium_envelope::row& row = upsert ? _record.after : _record.before;
  if (upsert && !row.present) {
    return make_error(error_code::missing_field,
                      "DSQL op " + std::string(op->token.text) + " record without after");
  }
  c.after.reserve(row.columns.size());
  for (const field& column : row.columns) {
    c.after.push_back(column_value{std::string(column.name), plain_value(column.token)});
  }
  if (auto err = key(c)) return std::move(*err);
  return c;
}

std::optional<error> dsql_decoder::record_type() const {
  const field* type = _record.top_field("type");
  if (!present(type)) return make_error(error_code::missing_field, "DSQL record has no type");
  if (type->token.kind != json_kind::string) {
    return make_error(error_code::wrong_type, "type must be a string");
  }
  if (type->token.text == "full") return std::nullopt;
  if (type->token.text == "chunked" || type->token.text == "fragment") {
    return unsupported_chunks();
  }
  return make_error(error_code::unsupported,
                    "unknown DSQL record type " + in_quotes(excerpt(type->token.text)));
}

error dsql_decoder::unsupported_chunks() const {
  // A principal record names its chunks under chunked.before / chunked.after; a fragment
  // names its own at the top.
  std::string ids;
  const auto add = [&ids](std::string_view id) {
    if (!ids.empty()) ids += ", ";
    ids += excerpt(id);
  };
  if (const field* f = _record.top_field("chunk_id"); present(f) && f->token.is_scalar()) {
    add(f->token.text);
  }
  if (const field* f = _record.top_field("chunked"); present(f)) {
    for (const json_leaf& leaf : _record.leaves_of(*f)) {
      if (leaf.name == "chunk_id") add(leaf.token.text);
    }
  }
  if (ids.empty()) ids = "unknown";
  return make_error(error_code::unsupported,
                    "DSQL chunked records are not supported yet (chunk_id " + ids + ")");
}

result<table_entry*> dsql_decoder::table() {
  std::string_view database;
  std::string_view schema;
  std::string_view name;
  if (auto err = name_part(_record, "db", database)) return std::move(*err);
  if (auto err = name_part(_record, "schema", schema)) return std::move(*err);
  if (auto err = name_part(_record, "table", name)) return std::move(*err);
  if (name.empty()) return make_error(error_code::missing_field, "source names no table");
  if (_last_table && _last_table->name.table == name && _last_table->name.schema == schema &&
      _last_table->name.database == database) {
    return _last_table;
  }
  _last_table =
      _catalog.intern(table_name{std::string(database), std::string(schema), std::string(name)});
  return _last_table;
}

result<timestamp_ns> dsql_decoder::commit_time() const {
  // source.ts_ns orders the records; source.ts_ms (milliseconds) stands in when it is missing.
  constexpr std::pair<std::string_view, int64_t> units[] = {{"ts_ns", 1}, {"ts_ms", 1'000'000}};
  for (const auto& [name, ns_per_unit] : units) {
    const field* f = _record.source_field(name);
    if (!present(f)) continue;
    const auto count = f->token.kind == json_kind::number || f->token.kind == json_kind::string
                           ? parse_integer(f->token.text)
                           : std::optional<int64_t>{};
    int64_t ns = 0;
    if (!count || __builtin_mul_overflow(*count, ns_per_unit, &ns)) {
      return make_error(error_code::bad_csn,
                        "source." + std::string(name) +
                            " is not an integer timestamp in range: " + excerpt(f->token.text));
    }
    return timestamp_ns{ns};
  }
  return make_error(error_code::bad_csn, "DSQL record without source.ts_ns: it cannot be ordered");
}

std::optional<error> dsql_decoder::key(change& c) {
  const table_entry& table = *c.table;
  // Neither configured nor learned: the target table's primary key, if it has one.
  if (table.key_columns.empty()) _catalog.resolve_key(*c.table, c.source.origin.topic);
  std::vector<std::string> columns = table.key_columns;
  if (columns.empty() && c.op == op_kind::remove) {
    for (const column_value& cv : c.after)
      columns.push_back(cv.name);  // a delete's before is the key
  }
  if (columns.empty()) {
    if (c.op == op_kind::remove) {
      return make_error(error_code::missing_key, "DSQL delete on table " + table.name.qualified() +
                                                     " without a key in before");
    }
    return make_error(error_code::missing_key,
                      "no key columns known for DSQL table " + table.name.qualified() +
                          ": configure tables." + config_name(table.name) +
                          ".primary.key.fields or give the target table a primary key (DSQL "
                          "inserts and updates do not name their key)");
  }
  std::vector<value> values;
  values.reserve(columns.size());
  _key_classes.assign(columns.size(), column_class::unknown);
  for (size_t i = 0; i < columns.size(); ++i) {
    const value* found = find_column(c.after, columns[i]);
    if (!found) {
      return make_error(error_code::missing_key,
                        "key column " + in_quotes(columns[i]) + " of table " +
                            table.name.qualified() + " is not in " +
                            (c.op == op_kind::upsert ? "after" : "before"));
    }
    values.push_back(*found);
    for (const column_info& info : table.columns) {
      if (info.name == columns[i]) _key_classes[i] = info.cls;
    }
  }
  auto k = make_row_key(std::move(columns), std::move(values), _key_classes);
  if (!k) return in_context("table " + table.name.qualified(), k.err());
  c.key = std::move(*k);
  return std::nullopt;
}

}  // namespace sluice
