#include "schemas/datastream/datastream_event.h"

#include <cstring>
#include <string>

#include "schemas/common/duplicate_names.h"
#include "schemas/common/json_text.h"
#include "schemas/common/same_text.h"

namespace sluice {
namespace {

using simdjson::ondemand::json_type;

constexpr size_t member_count = static_cast<size_t>(datastream_member::count);

// In datastream_member order.
constexpr std::array<std::string_view, member_count> member_names = {
    "read_method",
    "source_timestamp",
    "sort_keys",
    "database",
    "database_id",
    "schema",
    "table",
    "collection",
    "object_name",
    "is_deleted",
    "change_type",
    "mod_type",
    "primary_keys",
    "replication_index",
    "tx_id",
    "transaction_id",
    "xid",
    "server_transaction_id",
    "gtid",
    "log_file",
    "log_position",
    "binlog_file",
    "binlog_position",
    "scn",
    "rs_id",
    "ssn",
    "lsn",
    "commit_timestamp",
    "record_sequence",
    "mod_index",
    "mod_number",
    "change_stream_name",
    "physical_location",
    "ts",
    "clusterTime",
};

// name == literal, for a name already known to have the literal's length: a memcmp of
// constant size, which the compiler turns into a few integer compares (no call).
template <size_t n>
bool is(std::string_view name, const char (&literal)[n]) {
  return __builtin_memcmp(name.data(), literal, n - 1) == 0;
}

std::string in_quotes(std::string_view name) {
  return "\"" + std::string(name) + "\"";
}

}  // namespace

std::string_view name_of(datastream_member member) {
  return member_names[static_cast<size_t>(member)];
}

std::optional<datastream_member> datastream_member_named(std::string_view name) {
  // By length, then by constant-size compares (member_names lists the same names; a test
  // checks that each of them maps back to its member).
  switch (name.size()) {
    case 2:
      if (is(name, "ts")) return datastream_member::ts;
      break;
    case 3:
      if (is(name, "xid")) return datastream_member::xid;
      if (is(name, "scn")) return datastream_member::scn;
      if (is(name, "ssn")) return datastream_member::ssn;
      if (is(name, "lsn")) return datastream_member::lsn;
      break;
    case 4:
      if (is(name, "gtid")) return datastream_member::gtid;
      break;
    case 5:
      if (is(name, "table")) return datastream_member::table;
      if (is(name, "tx_id")) return datastream_member::tx_id;
      if (is(name, "rs_id")) return datastream_member::rs_id;
      break;
    case 6:
      if (is(name, "schema")) return datastream_member::schema;
      break;
    case 8:
      if (is(name, "database")) return datastream_member::database;
      if (is(name, "mod_type")) return datastream_member::mod_type;
      if (is(name, "log_file")) return datastream_member::log_file;
      break;
    case 9:
      if (is(name, "sort_keys")) return datastream_member::sort_keys;
      if (is(name, "mod_index")) return datastream_member::mod_index;
      break;
    case 10:
      if (is(name, "collection")) return datastream_member::collection;
      if (is(name, "is_deleted")) return datastream_member::is_deleted;
      if (is(name, "mod_number")) return datastream_member::mod_number;
      break;
    case 11:
      if (is(name, "read_method")) return datastream_member::read_method;
      if (is(name, "database_id")) return datastream_member::database_id;
      if (is(name, "object_name")) return datastream_member::object_name;
      if (is(name, "change_type")) return datastream_member::change_type;
      if (is(name, "binlog_file")) return datastream_member::binlog_file;
      if (is(name, "clusterTime")) return datastream_member::cluster_time;
      break;
    case 12:
      if (is(name, "primary_keys")) return datastream_member::primary_keys;
      if (is(name, "log_position")) return datastream_member::log_position;
      break;
    case 14:
      if (is(name, "transaction_id")) return datastream_member::transaction_id;
      break;
    case 15:
      if (is(name, "binlog_position")) return datastream_member::binlog_position;
      if (is(name, "record_sequence")) return datastream_member::record_sequence;
      break;
    case 16:
      if (is(name, "source_timestamp")) return datastream_member::source_timestamp;
      if (is(name, "commit_timestamp")) return datastream_member::commit_timestamp;
      break;
    case 17:
      if (is(name, "replication_index")) return datastream_member::replication_index;
      if (is(name, "physical_location")) return datastream_member::physical_location;
      break;
    case 18:
      if (is(name, "change_stream_name")) return datastream_member::change_stream_name;
      break;
    case 21:
      if (is(name, "server_transaction_id")) return datastream_member::server_transaction_id;
      break;
  }
  return std::nullopt;
}

void datastream_event::clear() {
  envelope.clear();
  metadata.clear();
  leaves.clear();
  // payload is not cleared: read_payload() overwrites it in place (see image_writer).
  has_metadata = false;
  has_payload = false;
}

std::optional<error> datastream_event_reader::read(simdjson::ondemand::document& doc,
                                                   std::string_view document,
                                                   datastream_event& out) {
  _values.begin_document(document);
  out.clear();
  _top_names.clear();
  _meta_names.clear();
  simdjson::ondemand::object root;
  if (auto code = doc.get_object().get(root)) {
    if (code == simdjson::INCORRECT_TYPE) {
      return make_error(error_code::wrong_type, "a Datastream event is a JSON object");
    }
    return json_error(code);  // the root as a whole: no useful byte offset
  }
  for (auto member : root) {
    if (auto code = member.error()) return _values.fail(code, doc);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view key;
    if (auto code = plain_key(field, key)) return _values.fail(code, doc);
    simdjson::ondemand::value& v = field.value();
    if (key == "payload") {
      if (out.has_payload) return make_error(error_code::invalid_json, "duplicate payload");
      out.has_payload = true;
      if (auto err = read_payload(v, out)) return err;
    } else if (key == "source_metadata") {
      if (out.has_metadata) {
        return make_error(error_code::invalid_json, "duplicate source_metadata");
      }
      out.has_metadata = true;
      if (auto err = read_fields(v, out)) return err;
    } else if (auto err = read_field("", key, v, out.envelope, _top_names, out)) {
      return err;
    }
  }
  if (!out.has_payload) out.payload.clear();
  // A complete root object followed by anything but whitespace is not one JSON document.
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == simdjson::SUCCESS) {
    return make_error(error_code::invalid_json, "invalid JSON: content after the event (at byte " +
                                                    std::to_string(rest - document.data()) + ")");
  }
  if (auto err = check_unique(_top_names, "event")) return err;
  if (auto err = check_unique(_meta_names, "source_metadata")) return err;
  return check_payload_unique(out.payload, out.has_payload && _payload_same_as_unique);
}

std::optional<error> datastream_event_reader::read_payload(simdjson::ondemand::value& v,
                                                           datastream_event& out) {
  json_type type;
  if (auto code = v.type().get(type)) return _values.fail(code, v);
  if (type != json_type::object) {
    return make_error(error_code::wrong_type, "payload must be a JSON object");
  }
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return _values.fail(code, v);
  // The payload is written over the columns the previous message left (their strings keep
  // their capacity); on error it is left half-written, and the decoder does not use it.
  image_writer columns(out.payload);
  bool same_as_unique = true;
  for (auto member : object) {
    if (auto code = member.error()) return _values.fail(code, v);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view name;
    if (auto code = plain_key(field, name)) return _values.fail(code, v);
    if (_values.has_nul(name)) {
      return make_error(error_code::nul_in_text, "payload column name contains \\u0000");
    }
    if (columns.size() >= _max_columns) {
      return make_error(error_code::too_many_columns,
                        "payload has more than " + std::to_string(_max_columns) + " columns");
    }
    const size_t index = columns.size();
    same_as_unique =
        same_as_unique && index < _unique_columns.size() && same_text(_unique_columns[index], name);
    column_value& column = columns.next();
    // Recycled images repeat the names.
    if (!same_text(column.name, name)) column.name.assign(name);
    if (auto err = _values.read_value(field.value(), column.v)) {
      return in_context("payload column " + in_quotes(name), std::move(*err));
    }
  }
  columns.finish();
  _payload_same_as_unique = same_as_unique && columns.size() == _unique_columns.size();
  return std::nullopt;
}

std::optional<error> datastream_event_reader::read_fields(simdjson::ondemand::value& v,
                                                          datastream_event& out) {
  json_type type;
  if (auto code = v.type().get(type)) return _values.fail(code, v);
  if (type != json_type::object) {
    return make_error(error_code::wrong_type, "source_metadata must be a JSON object");
  }
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return _values.fail(code, v);
  for (auto member : object) {
    if (auto code = member.error()) return _values.fail(code, v);
    simdjson::ondemand::field& field = member.value_unsafe();
    std::string_view key;
    if (auto code = plain_key(field, key)) return _values.fail(code, v);
    if (auto err =
            read_field("source_metadata.", key, field.value(), out.metadata, _meta_names, out)) {
      return err;
    }
  }
  return std::nullopt;
}

std::optional<error> datastream_event_reader::read_field(std::string_view prefix,
                                                         std::string_view name,
                                                         simdjson::ondemand::value& v,
                                                         datastream_event::members& into,
                                                         names_seen& names, datastream_event& out) {
  names.all.push_back(name);
  const std::optional<datastream_member> member = datastream_member_named(name);
  if (!member) {
    // Not read by the decoder: validated, its name kept for the duplicate check.
    names.unknown.push_back(name);
    json_token token;
    if (auto err = _values.read(v, token)) {
      return in_context(std::string(prefix) + std::string(name), std::move(*err));
    }
    return std::nullopt;
  }
  datastream_event::field* f = into.claim(*member);
  if (!f) {
    names.repeated = true;
    f = &_repeated;  // still read and validated
  }
  f->name = name;
  f->first_leaf = static_cast<uint32_t>(out.leaves.size());
  if (auto err = _values.read(v, f->token, &out.leaves)) {
    return in_context(std::string(prefix) + std::string(name), std::move(*err));
  }
  f->leaf_count = static_cast<uint32_t>(out.leaves.size() - f->first_leaf);
  return std::nullopt;
}

std::optional<error> datastream_event_reader::check_unique(names_seen& names,
                                                           std::string_view where) {
  // Known names repeat only if a slot was filled twice, and never equal unknown ones: with
  // neither, the names are unique. Otherwise the whole list says which name to report.
  if (!names.repeated && !find_duplicate_name(names.unknown)) return std::nullopt;
  const auto dup = find_duplicate_name(names.all);
  if (!dup) return std::nullopt;
  return make_error(error_code::invalid_json,
                    std::string(where) + " names " + in_quotes(*dup) + " twice");
}

std::optional<error> datastream_event_reader::check_payload_unique(const image& payload,
                                                                   bool same_as_unique) {
  if (same_as_unique) return std::nullopt;
  const auto dup = find_duplicate_member(payload, _names, _unique_columns);
  if (!dup) return std::nullopt;
  return make_error(error_code::invalid_json, "payload names " + in_quotes(*dup) + " twice");
}

}  // namespace sluice
