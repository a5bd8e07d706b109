#include "schemas/dsql/dsql_decoder.h"

#include <cctype>
#include <string>

#include "schemas/common/position_parser.h"
#include "schemas/common/same_text.h"
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
    if (same_text(c.name, name)) return &c.v;
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

std::optional<error> dsql_decoder::parse(const raw_message& msg) {
  const std::string_view bytes = *msg.value;
  if (auto err = _options.limits.check_size(bytes)) return err;
  const simdjson::padded_string_view padded = _buffer.assign(bytes);
  simdjson::ondemand::document doc;
  if (auto code = _parser.iterate(padded).get(doc)) return json_error(code);
  return _reader.read(doc, padded, _record);
}

std::optional<error> dsql_decoder::decode(const raw_message& msg, decode_output& out) {
  if (!msg.value) return std::nullopt;  // a Kafka tombstone: nothing to apply
  if (auto err = parse(msg)) return err;
  auto kind = record_type();
  if (!kind) return kind.err();
  if (*kind == record_kind::full) {
    // Written in place into a change set aside by an earlier clear(), over an image that
    // still holds an earlier record's columns: their strings keep their capacity.
    const size_t before = out.changes.size();
    change& c = out.add_change();
    c.after = out.recycled_image();
    if (auto err = to_change(msg, c)) {
      out.truncate_changes(before);
      return err;
    }
    return std::nullopt;
  }
  auto piece = *kind == record_kind::chunked ? principal_piece(msg) : fragment_piece(msg);
  if (!piece) return piece.err();
  out.pieces.push_back(std::move(*piece));
  return std::nullopt;
}

result<change> dsql_decoder::decode_chunked(const raw_message& principal, std::string_view image) {
  if (!principal.value) return make_error(error_code::missing_field, "no principal record");
  if (auto err = parse(principal)) return std::move(*err);
  auto kind = record_type();
  if (!kind) return kind.err();
  if (*kind != record_kind::chunked) {
    return make_error(error_code::wrong_type, "not a chunked principal record");
  }
  change c;
  if (auto err = header(principal, c)) return std::move(*err);
  auto ref = chunk_of(c.op);
  if (!ref) return ref.err();
  if (auto err = _options.limits.check_size(image, "reassembled image")) return std::move(*err);
  // The image is read as the one member of a small envelope, by the same reader (so with the
  // same validation and limits) into a second document: the record's views stay valid.
  const std::string_view name = ref->after ? "after" : "before";
  _side_text.assign("{\"");
  _side_text.append(name).append("\":").append(image).append("}");
  const simdjson::padded_string_view padded = _side_buffer.assign(_side_text);
  simdjson::ondemand::document doc;
  if (auto code = _side_parser.iterate(padded).get(doc)) {
    return in_context("chunk " + excerpt(ref->chunk_id), json_error(code));
  }
  if (auto err = _reader.read(doc, padded, _image)) {
    return in_context("chunk " + excerpt(ref->chunk_id), std::move(*err));
  }
  const debezium_envelope::row& row = ref->after ? _image.after : _image.before;
  if (!row.present || _image.top.size() != 0 || _image.has_source) {
    return make_error(error_code::wrong_type, "chunk " + excerpt(ref->chunk_id) +
                                                  ": the reassembled image is not a JSON object");
  }
  (ref->after ? _record.after : _record.before) = row;
  if (auto err = to_change(principal, c)) return std::move(*err);
  return c;
}

std::optional<error> dsql_decoder::to_change(const raw_message& msg, change& c) {
  if (auto err = header(msg, c)) return err;
  const bool upsert = c.op == op_kind::upsert;
  const debezium_envelope::row& row = upsert ? _record.after : _record.before;
  if (upsert && !row.present) {
    return make_error(
        error_code::missing_field,
        "DSQL op " + std::string(_record.top_field("op")->token.text) + " record without after");
  }
  image_writer columns(c.after);
  for (const field& column : row.columns) {
    column_value& cv = columns.next();
    if (!same_text(cv.name, column.name)) cv.name.assign(column.name);
    assign_plain_value(cv.v, column.token);
  }
  columns.finish();
  return key(c);
}

// Everything but the image and the key: op, table, CSN and source context.
std::optional<error> dsql_decoder::header(const raw_message& msg, change& c) {
  const field* op = _record.top_field("op");
  if (!present(op)) return make_error(error_code::missing_field, "DSQL record has no op");
  if (op->token.kind != json_kind::string) {
    return make_error(error_code::wrong_type, "op must be a string");
  }
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
  c.source.tx.assign(tx);
  c.source.source_ts = *ts;
  c.source.read = read_method::cdc;
  assign_origin(c.source.origin, msg);
  return std::nullopt;
}

result<dsql_decoder::record_kind> dsql_decoder::record_type() const {
  const field* type = _record.top_field("type");
  if (!present(type)) return make_error(error_code::missing_field, "DSQL record has no type");
  if (type->token.kind != json_kind::string) {
    return make_error(error_code::wrong_type, "type must be a string");
  }
  if (type->token.text == "full") return record_kind::full;
  if (type->token.text == "chunked") return record_kind::chunked;
  if (type->token.text == "fragment") return record_kind::fragment;
  return make_error(error_code::unsupported,
                    "unknown DSQL record type " + in_quotes(excerpt(type->token.text)));
}

result<dsql_decoder::chunk_ref> dsql_decoder::chunk_of(op_kind op) {
  const field* chunked = _record.top_field("chunked");
  if (!present(chunked)) {
    return make_error(error_code::missing_field, "DSQL chunked record without chunked");
  }
  if (chunked->token.kind != json_kind::object) {
    return make_error(error_code::wrong_type, "chunked must be an object");
  }
  // The block was validated with the record; read it as a document of its own.
  const simdjson::padded_string_view padded = _side_buffer.assign(chunked->token.text);
  simdjson::ondemand::document doc;
  simdjson::ondemand::object block;
  if (auto code = _side_parser.iterate(padded).get(doc)) return json_error(code);
  if (auto code = doc.get_object().get(block)) return json_error(code);
  std::optional<chunk_ref> found;
  for (auto member : block) {
    simdjson::ondemand::field f;
    std::string_view image;
    simdjson::ondemand::json_type type;
    if (auto code = std::move(member).get(f)) return json_error(code);
    if (auto code = f.unescaped_key().get(image)) return json_error(code);
    if (image != "before" && image != "after") continue;
    if (auto code = f.value().type().get(type)) return json_error(code);
    if (type == simdjson::ondemand::json_type::null) continue;
    const std::string where = "chunked." + std::string(image);
    if (type != simdjson::ondemand::json_type::object) {
      return make_error(error_code::wrong_type, where + " must be an object or null");
    }
    if (found) {
      return make_error(error_code::unsupported, "DSQL record with both images chunked (chunk_id " +
                                                     excerpt(found->chunk_id) + "): not supported");
    }
    chunk_ref ref;
    ref.after = image == "after";
    // The chunk_id is read from the record's own leaves: its view must outlive this block.
    bool have_id = false, have_total = false, have_crc = false;
    simdjson::ondemand::object desc;
    if (auto code = f.value().get_object().get(desc)) return json_error(code);
    for (auto m : desc) {
      simdjson::ondemand::field d;
      std::string_view name;
      if (auto code = std::move(m).get(d)) return json_error(code);
      if (auto code = d.unescaped_key().get(name)) return json_error(code);
      simdjson::ondemand::json_type t;
      if (auto code = d.value().type().get(t)) return json_error(code);
      if (name == "chunk_id") {
        if (t != simdjson::ondemand::json_type::string) {
          return make_error(error_code::wrong_type, where + ".chunk_id must be a string");
        }
        have_id = true;
      } else if (name == "total_fragments") {
        std::string_view raw = d.value().raw_json_token();
        while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.back())))
          raw.remove_suffix(1);
        const auto n = t == simdjson::ondemand::json_type::number ? parse_integer(raw)
                                                                  : std::optional<int64_t>{};
        if (!n || *n < 1 || *n > dsql_max_fragments) {
          return make_error(error_code::wrong_type,
                            where + ".total_fragments must be an integer from 1 to " +
                                std::to_string(dsql_max_fragments) + ", not " + excerpt(raw));
        }
        ref.total = static_cast<int32_t>(*n);
        have_total = true;
      } else if (name == "crc32c") {
        std::string_view text;
        if (t == simdjson::ondemand::json_type::string) {
          if (auto code = d.value().get_string().get(text)) return json_error(code);
        }
        const auto n = parse_integer(text);
        if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos || !n ||
            *n > 0xFFFFFFFFLL) {
          return make_error(error_code::wrong_type,
                            where + ".crc32c must be a decimal string of a 32-bit checksum");
        }
        ref.crc = static_cast<uint32_t>(*n);
        have_crc = true;
      }
    }
    if (!have_id || !have_total || !have_crc) {
      return make_error(error_code::missing_field,
                        where + " needs chunk_id, total_fragments and crc32c");
    }
    found = ref;
  }
  if (!found) {
    return make_error(error_code::missing_field, "DSQL chunked record names no chunk");
  }
  // The chunk id again, from the record's leaves (views into the record's document).
  size_t seen = 0;
  for (const json_leaf& leaf : _record.leaves_of(*chunked)) {
    if (leaf.name == "chunk_id" && leaf.token.kind == json_kind::string) {
      found->chunk_id = leaf.token.text;
      ++seen;
    }
  }
  if (seen != 1 || found->chunk_id.empty()) {
    return make_error(error_code::missing_field, "chunked names no usable chunk_id");
  }
  const bool needs_after = op == op_kind::upsert;
  if (found->after != needs_after) {
    return make_error(error_code::unsupported,
                      std::string("DSQL ") + (needs_after ? "upsert" : "delete") +
                          " record whose chunked image is " + (found->after ? "after" : "before") +
                          " (chunk_id " + excerpt(found->chunk_id) + "): not supported");
  }
  return *found;
}

result<chunk_piece> dsql_decoder::principal_piece(const raw_message& msg) {
  change c;  // a bad header is refused now, not once the fragments are in
  if (auto err = header(msg, c)) return std::move(*err);
  auto ref = chunk_of(c.op);
  if (!ref) return ref.err();
  chunk_piece p;
  p.chunk_id = std::string(ref->chunk_id);
  p.index = chunk_piece::principal;
  p.total_fragments = ref->total;
  p.crc32c = ref->crc;
  p.payload = std::string(*msg.value);
  p.origin = c.source.origin;
  return p;
}

result<chunk_piece> dsql_decoder::fragment_piece(const raw_message& msg) const {
  const field* id = _record.top_field("chunk_id");
  if (!present(id)) return make_error(error_code::missing_field, "DSQL fragment has no chunk_id");
  if (id->token.kind != json_kind::string || id->token.text.empty()) {
    return make_error(error_code::wrong_type, "chunk_id must be a non-empty string");
  }
  const field* index = _record.top_field("index");
  if (!present(index)) return make_error(error_code::missing_field, "DSQL fragment has no index");
  const auto n = index->token.kind == json_kind::number ? parse_integer(index->token.text)
                                                        : std::optional<int64_t>{};
  if (!n || *n < 0 || *n >= dsql_max_fragments) {
    return make_error(error_code::wrong_type, "fragment index must be an integer from 0 to " +
                                                  std::to_string(dsql_max_fragments - 1) +
                                                  ", not " + excerpt(index->token.text));
  }
  const field* data = _record.top_field("data");
  if (!present(data)) return make_error(error_code::missing_field, "DSQL fragment has no data");
  if (data->token.kind != json_kind::string) {
    return make_error(error_code::wrong_type, "fragment data must be a string");
  }
  chunk_piece p;
  p.chunk_id = std::string(id->token.text);
  p.index = static_cast<int32_t>(*n);
  p.payload = std::string(data->token.text);
  p.origin = message_origin{std::string(msg.topic), msg.partition, msg.offset, msg.timestamp};
  return p;
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
  std::vector<std::string>& columns = c.key.columns;
  columns.assign(table.key_columns.begin(), table.key_columns.end());
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
                          ": configure them (tables: {\"" + config_name(table.name) +
                          "\": {primary.key.fields: [...]}}) or give the target table a primary "
                          "key (DSQL inserts and updates do not name their key)");
  }
  std::vector<value>& values = c.key.values;
  values.resize(columns.size());
  _key_classes.assign(columns.size(), column_class::unknown);
  for (size_t i = 0; i < columns.size(); ++i) {
    const value* found = find_column(c.after, columns[i]);
    if (!found) {
      return make_error(error_code::missing_key,
                        "key column " + in_quotes(columns[i]) + " of table " +
                            table.name.qualified() + " is not in " +
                            (c.op == op_kind::upsert ? "after" : "before"));
    }
    values[i] = *found;
    for (const column_info& info : table.columns) {
      if (same_text(info.name, columns[i])) _key_classes[i] = info.cls;
    }
  }
  if (auto err = canonicalize_key(c.key, _key_classes)) {
    return in_context("table " + table.name.qualified(), std::move(*err));
  }
  return std::nullopt;
}

}  // namespace sluice
