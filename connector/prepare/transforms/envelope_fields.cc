#include "connector/prepare/transforms/envelope_fields.h"

#include <limits>

#include "schemas/common/json_value_reader.h"

namespace sluice {
namespace {

using block = envelope_field::block;

// The members add.fields may name: those of Debezium's envelope and transaction block, and
// the source members of the connectors whose messages sluice decodes (PostgreSQL, MySQL, SQL
// Server, Oracle), typed as their Connect schemas type them.
struct known_field {
  block in;
  std::string_view name;
  type_id type;
};
constexpr known_field known[] = {
    {block::top, "op", type_id::string},
    {block::top, "ts_ms", type_id::int64},
    {block::top, "ts_us", type_id::int64},
    {block::top, "ts_ns", type_id::int64},
    {block::transaction, "id", type_id::string},
    {block::transaction, "total_order", type_id::int64},
    {block::transaction, "data_collection_order", type_id::int64},
    // Every connector's source block.
    {block::source, "version", type_id::string},
    {block::source, "connector", type_id::string},
    {block::source, "name", type_id::string},
    {block::source, "ts_ms", type_id::int64},
    {block::source, "ts_us", type_id::int64},
    {block::source, "ts_ns", type_id::int64},
    {block::source, "snapshot", type_id::string},
    {block::source, "db", type_id::string},
    {block::source, "sequence", type_id::string},
    {block::source, "schema", type_id::string},
    {block::source, "table", type_id::string},
    {block::source, "txId", type_id::unknown},  // int64 in PostgreSQL, a string in Oracle
    // PostgreSQL.
    {block::source, "lsn", type_id::int64},
    {block::source, "xmin", type_id::int64},
    // MySQL.
    {block::source, "server_id", type_id::int64},
    {block::source, "gtid", type_id::string},
    {block::source, "file", type_id::string},
    {block::source, "pos", type_id::int64},
    {block::source, "row", type_id::int32},
    {block::source, "thread", type_id::int64},
    {block::source, "query", type_id::string},
    // SQL Server.
    {block::source, "change_lsn", type_id::string},
    {block::source, "commit_lsn", type_id::string},
    {block::source, "event_serial_no", type_id::int64},
    // Oracle.
    {block::source, "scn", type_id::string},
    {block::source, "commit_scn", type_id::string},
    {block::source, "rs_id", type_id::string},
    {block::source, "ssn", type_id::int64},
    {block::source, "redo_thread", type_id::int32},
    {block::source, "user_name", type_id::string},
};

std::string_view block_name(block b) {
  switch (b) {
    case block::top:
      return "";
    case block::source:
      return "source";
    case block::transaction:
      return "transaction";
  }
  return "";
}

std::string known_list() {
  std::string out;
  for (const known_field& k : known) {
    if (!out.empty()) out += ", ";
    if (k.in != block::top) out += std::string(block_name(k.in)) + ".";
    out += k.name;
  }
  return out;
}

// Where Debezium's FieldReference.determineStruct looks for a bare name.
block block_of_bare(std::string_view name) {
  if (name == "id" || name == "total_order" || name == "data_collection_order")
    return block::transaction;
  if (name == "op" || name == "ts_ms" || name == "ts_us" || name == "ts_ns") return block::top;
  return block::source;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// Floor division: an instant before 1970 stays in its millisecond, as Instant.toEpochMilli().
int64_t floor_div(int64_t a, int64_t b) {
  return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

}  // namespace

std::variant<envelope_field, std::string> parse_envelope_field(std::string_view entry,
                                                               std::string_view prefix) {
  entry = trim(entry);
  std::string_view path = entry;
  std::optional<std::string_view> renamed;
  if (const size_t colon = entry.find(':'); colon != std::string_view::npos) {
    path = entry.substr(0, colon);
    renamed = entry.substr(colon + 1);
    if (renamed->find(':') != std::string_view::npos)
      return "`" + std::string(entry) + "` is neither field nor field:new_name";
    if (renamed->empty()) return "`" + std::string(entry) + "` gives no new name after the colon";
  }
  if (path.empty()) return "an entry names no field";
  envelope_field f;
  bool qualified = false;
  if (const size_t dot = path.find('.'); dot != std::string_view::npos) {
    const std::string_view b = path.substr(0, dot);
    if (b == "source") {
      f.in = block::source;
    } else if (b == "transaction") {
      f.in = block::transaction;
    } else {
      return "`" + std::string(entry) + "`: only source.* and transaction.* members are known";
    }
    f.field = path.substr(dot + 1);
    qualified = true;
  } else {
    f.in = block_of_bare(path);
    f.field = path;
  }
  const known_field* k = nullptr;
  for (const known_field& candidate : known) {
    if (candidate.in == f.in && candidate.name == f.field) k = &candidate;
  }
  if (!k) return "`" + std::string(entry) + "` is not a field sluice knows; known: " + known_list();
  f.type.id = k->type;
  if (renamed) {
    f.column = std::string(prefix) + std::string(*renamed);
  } else if (qualified) {
    f.column = std::string(prefix) + std::string(block_name(f.in)) + "_" + f.field;
  } else {
    f.column = std::string(prefix) + f.field;
  }
  return f;
}

std::optional<value> envelope_value_of_change(const envelope_field& f, const change& c) {
  if (f.in == block::top) {
    if (f.field != "op") return std::nullopt;
    if (c.op == op_kind::remove) return value::string("d");
    if (c.op == op_kind::upsert && c.source.read == read_method::backfill)
      return value::string("r");
    return std::nullopt;  // c or u: the change does not keep which
  }
  if (f.in != block::source) return std::nullopt;
  if (f.field == "db" || f.field == "schema" || f.field == "table") {
    if (!c.table) return value::null();
    const table_name& n = c.table->name;
    const std::string& part = f.field == "db"       ? n.database
                              : f.field == "schema" ? n.schema
                                                    : n.table;
    return part.empty() ? value::null() : value::string(part);
  }
  const int64_t per_unit = f.field == "ts_ms"   ? 1'000'000
                           : f.field == "ts_us" ? 1'000
                           : f.field == "ts_ns" ? 1
                                                : 0;
  if (per_unit == 0) return std::nullopt;
  const int64_t ns = c.source.source_ts.value();
  if (ns == 0) return value::null();
  return value::number(std::to_string(floor_div(ns, per_unit)));
}

envelope_field_reader::envelope_field_reader()
    : _reader(std::numeric_limits<size_t>::max(), std::numeric_limits<size_t>::max(),
              /*schema_wrapper=*/true) {}

std::optional<std::string> envelope_field_reader::read(
    std::string_view json, std::span<const envelope_field* const> fields, std::vector<value>& out) {
  const simdjson::padded_string_view padded = _buffer.assign(json);
  simdjson::ondemand::document doc;
  if (auto code = _parser.iterate(padded).get(doc)) return json_error(code).message;
  if (auto err = _reader.read(doc, padded, _event)) return err->message;
  out.assign(fields.size(), value::null());
  for (size_t i = 0; i < fields.size(); ++i) {
    const envelope_field& f = *fields[i];
    const debezium_envelope::field* member = nullptr;
    switch (f.in) {
      case block::top:
        member = _event.top_field(f.field);
        break;
      case block::source:
        member = _event.source_field(f.field);
        break;
      case block::transaction:
        // The transaction block is flat: its leaves are its members.
        if (const auto* t = _event.top_field("transaction");
            t && t->token.kind == json_kind::object) {
          for (const json_leaf& leaf : _event.leaves_of(*t)) {
            if (leaf.name == f.field) out[i] = to_value(leaf.token);
          }
        }
        continue;
    }
    if (member) out[i] = to_value(member->token);
  }
  return std::nullopt;
}

}  // namespace sluice
