#include "schemas/datastream/datastream_event.h"

#include <cstring>
#include <string>

#include "schemas/common/duplicate_names.h"

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

// A name's slot in a 64-entry table: a hash of its length and three of its characters that
// the known names do not share (make_by_hash() refuses to compile if two did), so a name is
// compared with one candidate at most.
constexpr size_t hash_of(std::string_view n) {
  return (n.size() * 15 + static_cast<uint8_t>(n[0]) * 3 + static_cast<uint8_t>(n[1]) * 7 +
          static_cast<uint8_t>(n.back()) * 6) &
         63;
}

constexpr uint8_t no_member = 0xff;

constexpr std::array<uint8_t, 64> make_by_hash() {
  std::array<uint8_t, 64> t{};
  t.fill(no_member);
  for (size_t i = 0; i < member_count; ++i) {
    const size_t h = hash_of(member_names[i]);
    if (t[h] != no_member) throw "two datastream member names share a hash: change hash_of";
    t[h] = static_cast<uint8_t>(i);
  }
  return t;
}

constexpr std::array<uint8_t, 64> by_hash = make_by_hash();

std::string in_quotes(std::string_view name) {
  return "\"" + std::string(name) + "\"";
}

}  // namespace

std::string_view name_of(datastream_member member) {
  return member_names[static_cast<size_t>(member)];
}

std::optional<datastream_member> datastream_member_named(std::string_view name) {
  if (name.size() < 2) return std::nullopt;  // every known name has two characters or more
  const uint8_t candidate = by_hash[hash_of(name)];
  if (candidate == no_member || member_names[candidate] != name) return std::nullopt;
  return static_cast<datastream_member>(candidate);
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
    simdjson::ondemand::field field;
    if (auto code = std::move(member).get(field)) return _values.fail(code, doc);
    std::string_view key;
    if (auto code = field.unescaped_key().get(key)) return _values.fail(code, doc);
    simdjson::ondemand::value v = field.value();
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
  return check_payload_unique(out.payload);
}

std::optional<error> datastream_event_reader::read_payload(simdjson::ondemand::value v,
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
  for (auto member : object) {
    simdjson::ondemand::field field;
    if (auto code = std::move(member).get(field)) return _values.fail(code, v);
    std::string_view name;
    if (auto code = field.unescaped_key().get(name)) return _values.fail(code, v);
    if (_values.has_nul(name)) {
      return make_error(error_code::nul_in_text, "payload column name contains \\u0000");
    }
    if (columns.size() >= _max_columns) {
      return make_error(error_code::too_many_columns,
                        "payload has more than " + std::to_string(_max_columns) + " columns");
    }
    column_value& column = columns.next();
    if (column.name != name) column.name.assign(name);  // recycled images repeat the names
    if (auto err = _values.read_value(field.value(), column.v)) {
      return in_context("payload column " + in_quotes(name), std::move(*err));
    }
  }
  columns.finish();
  return std::nullopt;
}

std::optional<error> datastream_event_reader::read_fields(simdjson::ondemand::value v,
                                                          datastream_event& out) {
  json_type type;
  if (auto code = v.type().get(type)) return _values.fail(code, v);
  if (type != json_type::object) {
    return make_error(error_code::wrong_type, "source_metadata must be a JSON object");
  }
  simdjson::ondemand::object object;
  if (auto code = v.get_object().get(object)) return _values.fail(code, v);
  for (auto member : object) {
    simdjson::ondemand::field field;
    if (auto code = std::move(member).get(field)) return _values.fail(code, v);
    std::string_view key;
    if (auto code = field.unescaped_key().get(key)) return _values.fail(code, v);
    if (auto err =
            read_field("source_metadata.", key, field.value(), out.metadata, _meta_names, out)) {
      return err;
    }
  }
  return std::nullopt;
}

std::optional<error> datastream_event_reader::read_field(std::string_view prefix,
                                                         std::string_view name,
                                                         simdjson::ondemand::value v,
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
  datastream_event::field f{name, {}, static_cast<uint32_t>(out.leaves.size()), 0};
  if (auto err = _values.read(v, f.token, &out.leaves)) {
    return in_context(std::string(prefix) + std::string(name), std::move(*err));
  }
  f.leaf_count = static_cast<uint32_t>(out.leaves.size() - f.first_leaf);
  if (!into.set(*member, f)) names.repeated = true;
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

std::optional<error> datastream_event_reader::check_payload_unique(const image& payload) {
  _names.clear();
  for (const auto& c : payload)
    _names.push_back(c.name);
  const auto dup = find_duplicate_name(_names);
  if (!dup) return std::nullopt;
  return make_error(error_code::invalid_json, "payload names " + in_quotes(*dup) + " twice");
}

}  // namespace sluice
