#include "schemas/datastream/datastream_ordering.h"

#include <limits>
#include <string>

#include "schemas/common/position_parser.h"

namespace sluice {
namespace {

using field = datastream_event::field;

bool present(const field* f) {
  return f && f->token.kind != json_kind::null;
}

error missing(std::string_view source, std::string_view what) {
  return make_error(error_code::bad_csn, std::string(source) + " CDC event without " +
                                             std::string(what) + ": it cannot be ordered");
}

// A position that is an integer, sent as a JSON number or a numeric string.
result<int64_t> integer_of(const field* f, std::string_view source) {
  if (!present(f)) return missing(source, "source_metadata." + std::string(f ? f->name : ""));
  if (f->token.kind == json_kind::number || f->token.kind == json_kind::string) {
    if (auto v = parse_integer(f->token.text)) return *v;
  }
  return make_error(error_code::bad_csn,
                    "source_metadata." + std::string(f->name) +
                        " is not an integer: " + std::string(f->token.text.substr(0, 64)));
}

result<int64_t> required_integer(const datastream_event& e, datastream_member name,
                                 std::string_view source) {
  const field* f = e.meta(name);
  if (!present(f)) return missing(source, "source_metadata." + std::string(name_of(name)));
  return integer_of(f, source);
}

result<std::string_view> text_of(const field* f) {
  if (f->token.kind == json_kind::string || f->token.kind == json_kind::number) {
    return f->token.text;
  }
  return make_error(error_code::wrong_type,
                    "source_metadata." + std::string(f->name) + " must be a string");
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.starts_with(prefix);
}

}  // namespace

const char* to_string(datastream_source source) {
  switch (source) {
    case datastream_source::mysql:
      return "mysql";
    case datastream_source::oracle:
      return "oracle";
    case datastream_source::postgresql:
      return "postgresql";
    case datastream_source::sqlserver:
      return "sqlserver";
    case datastream_source::spanner:
      return "spanner";
    case datastream_source::salesforce:
      return "salesforce";
    case datastream_source::mongodb:
      return "mongodb";
    case datastream_source::other:
      break;
  }
  return "other";
}

read_method classify_read_method(std::string_view method) {
  const bool backfill = method.find("backfill") != std::string_view::npos ||
                        method.ends_with("-fulldump") || method.ends_with("-incremental");
  return backfill ? read_method::backfill : read_method::cdc;
}

datastream_source detect_source(const datastream_event& e, std::string_view method) {
  if (starts_with(method, "mysql-")) return datastream_source::mysql;
  if (starts_with(method, "oracle-")) return datastream_source::oracle;
  if (starts_with(method, "postgres")) return datastream_source::postgresql;
  if (starts_with(method, "sqlserver-")) return datastream_source::sqlserver;
  if (starts_with(method, "spanner-")) return datastream_source::spanner;
  if (starts_with(method, "salesforce-")) return datastream_source::salesforce;
  if (starts_with(method, "mongodb-")) return datastream_source::mongodb;
  if (e.meta(datastream_member::collection)) return datastream_source::mongodb;
  if (e.meta(datastream_member::object_name)) return datastream_source::salesforce;
  if (e.meta(datastream_member::commit_timestamp) || e.meta(datastream_member::record_sequence) ||
      e.meta(datastream_member::mod_number) || e.meta(datastream_member::mod_index) ||
      e.meta(datastream_member::change_stream_name)) {
    return datastream_source::spanner;
  }
  if (e.meta(datastream_member::scn) || e.meta(datastream_member::rs_id) ||
      e.meta(datastream_member::ssn))
    return datastream_source::oracle;
  if (e.meta(datastream_member::log_position) || e.meta(datastream_member::binlog_position) ||
      e.meta(datastream_member::binlog_file) || e.meta(datastream_member::gtid) ||
      e.meta(datastream_member::log_file)) {
    return datastream_source::mysql;
  }
  if (e.meta(datastream_member::replication_index) ||
      e.meta(datastream_member::physical_location)) {
    return datastream_source::sqlserver;
  }
  if (const field* lsn = e.meta(datastream_member::lsn)) {
    return lsn->token.text.find('/') != std::string_view::npos ? datastream_source::postgresql
                                                               : datastream_source::sqlserver;
  }
  return datastream_source::other;
}

result<csn> datastream_ordering::sequence(const datastream_event& e, datastream_source source,
                                          read_method method,
                                          std::optional<timestamp_ns> source_ts) {
  std::optional<error> err;
  if (method == read_method::backfill) {
    // Backfill events come in any order and may carry empty positions (SPEC §3).
    _builder.add(int64_t{0});
    if (source_ts) _builder.add(source_ts->value());
  } else {
    _builder.add(int64_t{1});
    switch (source) {
      case datastream_source::mysql:
        err = add_mysql(e);
        break;
      case datastream_source::oracle:
        err = add_oracle(e);
        break;
      case datastream_source::postgresql:
      case datastream_source::sqlserver:
        err = add_lsn_source(e, source, source_ts);
        break;
      case datastream_source::spanner:
        err = add_spanner(e, source_ts);
        break;
      case datastream_source::salesforce:
        if (!source_ts) err = missing("salesforce", "source_timestamp");
        if (!err) _builder.add(source_ts->value());
        break;
      case datastream_source::mongodb:
        err = add_mongodb(e);
        break;
      case datastream_source::other:
        err = add_sort_keys(e, source_ts);
        break;
    }
  }
  csn out = _builder.build();  // also resets the builder after an error
  if (err) return std::move(*err);
  return out;
}

std::optional<error> datastream_ordering::add_mysql(const datastream_event& e) {
  // GTID streams name their position binlog_file/binlog_position.
  const bool gtid = present(e.meta(datastream_member::binlog_file)) ||
                    present(e.meta(datastream_member::binlog_position));
  const datastream_member file_member =
      gtid ? datastream_member::binlog_file : datastream_member::log_file;
  const datastream_member position_name =
      gtid ? datastream_member::binlog_position : datastream_member::log_position;
  const std::string_view file_name = name_of(file_member);
  const field* file = e.meta(file_member);
  if (!present(file)) return missing("mysql", "source_metadata." + std::string(file_name));
  auto text = text_of(file);
  if (!text) return text.err();
  const auto split = split_log_file(*text);
  if (!split) {
    return make_error(error_code::bad_csn, "source_metadata." + std::string(file_name) +
                                               " has no file sequence: " + std::string(*text));
  }
  auto position = required_integer(e, position_name, "mysql");
  if (!position) return position.err();
  _builder.add(split->sequence).add(*position);
  return std::nullopt;
}

std::optional<error> datastream_ordering::add_oracle(const datastream_event& e) {
  auto scn = required_integer(e, datastream_member::scn, "oracle");
  if (!scn) return scn.err();
  std::string rs_id;
  if (const field* f = e.meta(datastream_member::rs_id); present(f)) {
    auto text = text_of(f);
    if (!text) return text.err();
    rs_id = normalize_hex_position(*text);
  }
  int64_t ssn = 0;
  if (const field* f = e.meta(datastream_member::ssn); present(f)) {
    auto v = integer_of(f, "oracle");
    if (!v) return v.err();
    ssn = *v;
  }
  _builder.add(*scn).add(rs_id).add(ssn);
  return std::nullopt;
}

std::optional<error> datastream_ordering::add_lsn_source(const datastream_event& e,
                                                         datastream_source source,
                                                         std::optional<timestamp_ns> source_ts) {
  const char* name = to_string(source);
  if (!source_ts) return missing(name, "source_timestamp");
  const field* f = e.meta(datastream_member::lsn);
  if (!present(f)) return missing(name, "source_metadata.lsn");
  auto text = text_of(f);
  if (!text) return text.err();
  _builder.add(source_ts->value());
  if (source == datastream_source::sqlserver) {
    _builder.add(normalize_hex_position(*text));
    return std::nullopt;
  }
  std::optional<uint64_t> lsn = parse_pg_lsn(*text);
  if (!lsn) {
    if (auto plain = parse_integer(*text); plain && *plain >= 0) lsn = *plain;
  }
  if (!lsn || *lsn > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return make_error(error_code::bad_csn,
                      "source_metadata.lsn is not a PostgreSQL LSN: " + std::string(*text));
  }
  _builder.add(static_cast<int64_t>(*lsn));
  return std::nullopt;
}

std::optional<error> datastream_ordering::add_spanner(const datastream_event& e,
                                                      std::optional<timestamp_ns> source_ts) {
  std::optional<timestamp_ns> commit = source_ts;
  if (const field* f = e.meta(datastream_member::commit_timestamp); present(f)) {
    auto text = text_of(f);
    if (!text) return text.err();
    auto ts = parse_timestamp(*text, _zone);
    if (!ts) return in_context("source_metadata.commit_timestamp", ts.err());
    commit = *ts;
  }
  if (!commit) return missing("spanner", "source_metadata.commit_timestamp");
  const field* sequence = e.meta(datastream_member::record_sequence);
  if (!present(sequence)) return missing("spanner", "source_metadata.record_sequence");
  int64_t mod = 0;
  const field* mod_field = e.meta(datastream_member::mod_index);
  if (!present(mod_field)) mod_field = e.meta(datastream_member::mod_number);
  if (present(mod_field)) {
    auto v = integer_of(mod_field, "spanner");
    if (!v) return v.err();
    mod = *v;
  }
  _builder.add(commit->value());
  add_part(sequence->token);
  _builder.add(mod);
  return std::nullopt;
}

std::optional<error> datastream_ordering::add_mongodb(const datastream_event& e) {
  const field* f = nullptr;
  for (const field* candidate :
       {e.meta(datastream_member::ts), e.top(datastream_member::ts),
        e.meta(datastream_member::cluster_time), e.top(datastream_member::cluster_time)}) {
    if (present(candidate)) {
      f = candidate;
      break;
    }
  }
  if (!f) return missing("mongodb", "ts or clusterTime");
  if (f->token.is_scalar()) {
    add_part(f->token);
    return std::nullopt;
  }
  // A BSON timestamp: {"t": seconds, "i": increment}, possibly as {"$timestamp": {...}}.
  const auto leaves = e.leaves_of(*f);
  const json_leaf* t = nullptr;
  const json_leaf* i = nullptr;
  for (const json_leaf& leaf : leaves) {
    if (leaf.name == "t") t = &leaf;
    if (leaf.name == "i") i = &leaf;
  }
  if (t && i) {
    add_part(t->token);
    add_part(i->token);
    return std::nullopt;
  }
  if (leaves.empty()) return missing("mongodb", "ts or clusterTime");
  for (const json_leaf& leaf : leaves)
    add_part(leaf.token);
  return std::nullopt;
}

std::optional<error> datastream_ordering::add_sort_keys(const datastream_event& e,
                                                        std::optional<timestamp_ns> source_ts) {
  const field* keys = e.top(datastream_member::sort_keys);
  if (present(keys) && keys->token.kind != json_kind::array) {
    return make_error(error_code::wrong_type, "sort_keys must be an array");
  }
  if (present(keys) && keys->leaf_count > 0) {
    for (const json_leaf& leaf : e.leaves_of(*keys))
      add_part(leaf.token);
    return std::nullopt;
  }
  if (!source_ts) return missing("Datastream", "sort_keys or source_timestamp");
  _builder.add(source_ts->value());
  return std::nullopt;
}

void datastream_ordering::add_part(const json_token& token) {
  if (token.kind == json_kind::number || token.kind == json_kind::string) {
    if (auto v = parse_integer(token.text)) {
      _builder.add(*v);
      return;
    }
  }
  _builder.add(token.text);  // null adds "", true/false their text
}

}  // namespace sluice
