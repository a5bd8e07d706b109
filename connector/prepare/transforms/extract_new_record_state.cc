#include "connector/prepare/transforms/extract_new_record_state.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <stdexcept>

namespace sluice {
namespace {

// Debezium's ExtractNewRecordStateConfigDefinition.DELETED_FIELD: not prefixed.
constexpr std::string_view deleted_column = "__deleted";

// Debezium's EnumeratedValue.parse: trimmed, case-insensitive.
std::string normalized(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  std::string out(s);
  for (char& ch : out)
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

bool has_column(const image& row, std::string_view name) {
  return std::any_of(row.begin(), row.end(),
                     [&](const column_value& cv) { return cv.name == name; });
}

std::string table_of(const change& c) {
  return c.table ? c.table->name.qualified() : std::string("the table");
}

}  // namespace

extract_new_record_state::extract_new_record_state(const std::string& name, const unwrap_options& o)
    : _who("transforms." + name) {
  if (o.delete_tombstone_handling_mode) {
    // 2.x reads delete.handling.mode and drop.tombstones only when this is unset; 3.x has only
    // this one. Whatever happens to Debezium's tombstone, sluice never sees it (see the header).
    const std::string mode = normalized(*o.delete_tombstone_handling_mode);
    if (mode == "drop") {
      _deletes = deletes::drop;
    } else if (mode == "tombstone" || mode == "delete-to-tombstone") {
      _deletes = deletes::keep;
    } else if (mode == "rewrite" || mode == "rewrite-with-tombstone") {
      _deletes = deletes::rewrite;
    } else {
      throw std::invalid_argument(_who + ".delete.tombstone.handling.mode: `" +
                                  *o.delete_tombstone_handling_mode +
                                  "` is not one of drop, tombstone, rewrite, "
                                  "rewrite-with-tombstone, delete-to-tombstone");
    }
  } else if (o.delete_handling_mode || o.drop_tombstones) {
    // Debezium 2.x's LegacyDeleteHandlingStrategy. drop.tombstones=false passes on the
    // tombstone that follows each delete, which a JDBC sink applies as the delete: with
    // `drop`, the delete is kept (sluice applies deletes under its own delete.enabled).
    const std::string mode = normalized(o.delete_handling_mode.value_or("drop"));
    const bool tombstones_kept = !o.drop_tombstones.value_or(true);
    if (mode == "drop") {
      _deletes = tombstones_kept ? deletes::keep : deletes::drop;
    } else if (mode == "none") {
      _deletes = deletes::keep;
    } else if (mode == "rewrite") {
      _deletes = deletes::rewrite;
    } else {
      throw std::invalid_argument(_who + ".delete.handling.mode: `" + *o.delete_handling_mode +
                                  "` is not one of drop, rewrite, none");
    }
  }
  if (!o.add_headers.empty()) {
    throw std::invalid_argument(
        _who +
        ".add.headers: Debezium adds these as Kafka headers of the record it hands on, and "
        "sluice hands on no Kafka record: nothing after the transform could read them. Remove "
        "it, or list the fields in add.fields to have them as columns");
  }
  if (!o.route_by_field.empty()) {
    throw std::invalid_argument(_who +
                                ".route.by.field: routing by a column's value is not supported "
                                "(route by topic with RegexRouter or table.name.format)");
  }
  if (!o.drop_fields_header_name.empty()) {
    throw std::invalid_argument(
        _who + ".drop.fields.header.name: dropping the fields a header lists is not supported");
  }
  for (const std::string& entry : o.add_fields) {
    auto parsed = parse_envelope_field(entry, o.add_fields_prefix);
    if (auto* why = std::get_if<std::string>(&parsed))
      throw std::invalid_argument(_who + ".add.fields: " + *why);
    envelope_field& f = std::get<envelope_field>(parsed);
    if (_deletes == deletes::rewrite && f.column == deleted_column) {
      throw std::invalid_argument(_who + ".add.fields: `" + entry + "` would write " + f.column +
                                  ", the column the rewrite mode writes");
    }
    for (const envelope_field& other : _fields) {
      if (other.column == f.column)
        throw std::invalid_argument(_who + ".add.fields: two entries write the column " + f.column);
    }
    _fields.push_back(std::move(f));
  }
}

std::optional<std::string> extract_new_record_state::collision(const change& c) const {
  auto clash = [&](std::string_view column) -> std::optional<std::string> {
    if (std::find(c.key.columns.begin(), c.key.columns.end(), column) != c.key.columns.end())
      return _who + ": " + std::string(column) + " is a key column of " + table_of(c) +
             ": ExtractNewRecordState cannot write it";
    if (has_column(c.after, column) || (c.types && c.types->find(column)))
      return _who + ": " + table_of(c) + " already has a column " + std::string(column) +
             ", which ExtractNewRecordState would write";
    return std::nullopt;
  };
  if (_deletes == deletes::rewrite) {
    if (auto why = clash(deleted_column)) return why;
  }
  for (const envelope_field& f : _fields) {
    if (auto why = clash(f.column)) return why;
  }
  return std::nullopt;
}

std::optional<std::string> extract_new_record_state::field_values(const change& c,
                                                                  const record_context& r) {
  _values.assign(_fields.size(), value::null());
  std::vector<const envelope_field*>& wanted = _from_json;
  wanted.clear();
  for (size_t i = 0; i < _fields.size(); ++i) {
    if (auto v = envelope_value_of_change(_fields[i], c)) {
      _values[i] = std::move(*v);
    } else {
      wanted.push_back(&_fields[i]);
    }
  }
  if (wanted.empty()) return std::nullopt;
  auto names = [&] {
    std::string out;
    for (const envelope_field* f : wanted)
      out += (out.empty() ? "" : ", ") + f->column;
    return out;
  };
  // An Avro value (the Confluent frame's magic byte): sluice keeps only what the change says.
  if (!r.raw.value || r.raw.value->empty() || r.raw.value->front() == '\0') {
    return _who + ".add.fields: " + names() +
           " come from the message's JSON envelope, and this message is not JSON (of an Avro "
           "message sluice keeps op d and r, source.db, source.schema, source.table and "
           "source.ts_ms/ts_us/ts_ns)";
  }
  // One parse per message: a Debezium message gives one change.
  if (auto why = _json.read(*r.raw.value, wanted, _json_values))
    return _who + ".add.fields: reading " + names() + " from the message: " + *why;
  size_t next = 0;
  for (size_t i = 0; i < _fields.size() && next < wanted.size(); ++i) {
    if (&_fields[i] == wanted[next]) _values[i] = std::move(_json_values[next++]);
  }
  return std::nullopt;
}

shared_column_types extract_new_record_state::types_of(const shared_column_types& from) const {
  auto out = std::make_shared<column_types>(*from);
  if (_deletes == deletes::rewrite) {
    column_type t;
    t.id = type_id::string;
    out->columns.push_back({std::string(deleted_column), t, {}});
  }
  for (const envelope_field& f : _fields)
    out->columns.push_back({f.column, f.type, {}});
  return out;
}

std::variant<change_transform::outcome, std::string> extract_new_record_state::apply(
    change& c, const record_context& r) {
  // Debezium drops truncate events whatever the options; a JDBC sink behind it sees none.
  if (c.op == op_kind::truncate) return outcome::drop;
  if (c.op == op_kind::remove) {
    if (_deletes == deletes::drop) return outcome::drop;
    // Debezium rewrites only a `before` it has; without it the delete goes on as a null value.
    if (_deletes == deletes::keep || c.after.empty()) return outcome::keep;
  }
  if (_deletes != deletes::rewrite && _fields.empty()) return outcome::keep;
  if (auto why = collision(c)) return *why;
  if (auto why = field_values(c, r)) return *why;

  if (_deletes == deletes::rewrite) {
    const bool deleted = c.op == op_kind::remove;
    if (deleted) {
      // The row as it was deleted, at the delete's CSN: the merge orders it as it ordered the
      // delete. A column its schema has and the image lacks keeps its stored value, as a JDBC
      // sink updates only the fields a record has.
      c.op = op_kind::upsert;
      if (c.types) {
        for (const column_types::column& t : c.types->columns) {
          if (!has_column(c.after, t.name)) c.partial = true;
        }
      }
    }
    c.after.push_back({std::string(deleted_column), value::string(deleted ? "true" : "false")});
  }
  for (size_t i = 0; i < _fields.size(); ++i)
    c.after.push_back({_fields[i].column, std::move(_values[i])});
  if (c.types) {
    c.types = _types.of(c.types, [&](const shared_column_types& from) { return types_of(from); });
  }
  return outcome::keep;
}

}  // namespace sluice
