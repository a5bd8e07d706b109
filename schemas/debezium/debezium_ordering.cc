#include "schemas/debezium/debezium_ordering.h"

#include <limits>
#include <string>

#include "schemas/common/position_parser.h"

namespace sluice {
namespace {

using field = debezium_envelope::field;

bool present(const field* f) {
  return f && f->token.kind != json_kind::null;
}

std::string excerpt(std::string_view text) {
  return text.size() <= 40 ? std::string(text) : std::string(text.substr(0, 40)) + "...";
}

error missing(debezium_source source, std::string_view what) {
  return make_error(error_code::bad_csn, std::string(to_string(source)) + " event without source." +
                                             std::string(what) + ": it cannot be ordered");
}

// A position that is an integer, sent as a JSON number or a numeric string.
result<int64_t> integer_of(const field& f) {
  if (f.token.kind == json_kind::number || f.token.kind == json_kind::string) {
    if (auto v = parse_integer(f.token.text)) return *v;
  }
  return make_error(error_code::bad_csn, "source." + std::string(f.name) +
                                             " is not an integer: " + excerpt(f.token.text));
}

result<int64_t> required_integer(const debezium_envelope& e, std::string_view name,
                                 debezium_source source) {
  const field* f = e.source_field(name);
  if (!present(f)) return missing(source, name);
  return integer_of(*f);
}

// Text of a string (or number) member; "" when absent or null.
result<std::string_view> optional_text(const debezium_envelope& e, std::string_view name) {
  const field* f = e.source_field(name);
  if (!present(f)) return std::string_view{};
  if (f->token.kind == json_kind::string || f->token.kind == json_kind::number) {
    return f->token.text;
  }
  return make_error(error_code::bad_csn, "source." + std::string(name) + " must be a string");
}

// Debezium's PostgreSQL `sequence`: a JSON array of numeric strings (or nulls) inside a
// string, e.g. ["24023119","24023128"]. Appends each part as a number.
std::optional<error> add_sequence(csn_builder& builder, std::string_view text) {
  const auto bad = [&] {
    return make_error(error_code::bad_csn,
                      "source.sequence is not an array of numeric strings: " + excerpt(text));
  };
  const auto skip_space = [&](size_t& i) {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) {
      ++i;
    }
  };
  size_t i = 0;
  skip_space(i);
  if (i >= text.size() || text[i++] != '[') return bad();
  skip_space(i);
  if (i < text.size() && text[i] == ']') {  // an empty sequence adds no parts
    ++i;
    skip_space(i);
    return i == text.size() ? std::nullopt : std::optional<error>(bad());
  }
  while (true) {
    skip_space(i);
    if (text.substr(i, 4) == "null") {
      builder.add(std::numeric_limits<int64_t>::min());
      i += 4;
    } else {
      const bool quoted = i < text.size() && text[i] == '"';
      if (quoted) ++i;
      const size_t start = i;
      while (i < text.size() && text[i] != '"' && text[i] != ',' && text[i] != ']' &&
             text[i] != ' ') {
        ++i;
      }
      const auto part = parse_integer(text.substr(start, i - start));
      if (!part) return bad();
      if (quoted && (i >= text.size() || text[i++] != '"')) return bad();
      builder.add(*part);
    }
    skip_space(i);
    if (i >= text.size()) return bad();
    if (text[i] == ']') break;
    if (text[i++] != ',') return bad();
  }
  ++i;
  skip_space(i);
  if (i != text.size()) return bad();
  return std::nullopt;
}

}  // namespace

const char* to_string(debezium_source source) {
  switch (source) {
    case debezium_source::postgresql:
      return "postgresql";
    case debezium_source::mysql:
      return "mysql";
    case debezium_source::sqlserver:
      return "sqlserver";
    case debezium_source::oracle:
      return "oracle";
    case debezium_source::other:
      break;
  }
  return "other";
}

debezium_source detect_source(const debezium_envelope& e) {
  if (const field* f = e.source_field("connector"); f && f->token.kind == json_kind::string) {
    const std::string_view c = f->token.text;
    if (c == "postgresql") return debezium_source::postgresql;
    if (c == "mysql" || c == "mariadb") return debezium_source::mysql;
    if (c == "sqlserver") return debezium_source::sqlserver;
    if (c == "oracle") return debezium_source::oracle;
  }
  if (e.source_field("lsn")) return debezium_source::postgresql;
  if (e.source_field("file") && e.source_field("pos")) return debezium_source::mysql;
  if (e.source_field("change_lsn") || e.source_field("commit_lsn")) {
    return debezium_source::sqlserver;
  }
  if (e.source_field("scn")) return debezium_source::oracle;
  return debezium_source::other;
}

result<std::optional<timestamp_ns>> debezium_source_timestamp(const debezium_envelope& e) {
  constexpr std::pair<std::string_view, int64_t> units[] = {
      {"ts_ns", 1}, {"ts_us", 1'000}, {"ts_ms", 1'000'000}};
  for (const auto& [name, ns_per_unit] : units) {
    const field* f = e.source_field(name);
    if (!present(f)) continue;
    const auto count = f->token.kind == json_kind::number ? parse_integer(f->token.text)
                                                          : std::optional<int64_t>{};
    int64_t ns = 0;
    if (!count || __builtin_mul_overflow(*count, ns_per_unit, &ns)) {
      return make_error(error_code::wrong_type,
                        "source." + std::string(name) +
                            " is not an integer timestamp in range: " + excerpt(f->token.text));
    }
    return std::optional<timestamp_ns>{timestamp_ns{ns}};
  }
  return std::optional<timestamp_ns>{};
}

result<csn> debezium_ordering::sequence(const debezium_envelope& e, read_method method,
                                        std::optional<timestamp_ns> source_ts) {
  std::optional<error> err;
  if (method == read_method::backfill) {
    _builder.add(int64_t{0});
    if (source_ts) _builder.add(source_ts->value());
  } else {
    _builder.add(int64_t{1});
    const debezium_source source = detect_source(e);
    switch (source) {
      case debezium_source::postgresql:
        err = add_postgresql(e);
        break;
      case debezium_source::mysql:
        err = add_mysql(e);
        break;
      case debezium_source::sqlserver:
        err = add_sqlserver(e);
        break;
      case debezium_source::oracle:
        err = add_oracle(e);
        break;
      case debezium_source::other:
        if (!source_ts) err = missing(source, "ts_ms");
        if (!err) _builder.add(source_ts->value());
        break;
    }
  }
  csn out = _builder.build();  // also resets the builder after an error
  if (err) return std::move(*err);
  return out;
}

std::optional<error> debezium_ordering::add_postgresql(const debezium_envelope& e) {
  const field* lsn = e.source_field("lsn");
  if (!present(lsn)) return missing(debezium_source::postgresql, "lsn");
  std::optional<int64_t> position;
  if (lsn->token.kind == json_kind::string) {
    if (auto v = parse_pg_lsn(lsn->token.text);
        v && *v <= uint64_t{std::numeric_limits<int64_t>::max()}) {
      position = static_cast<int64_t>(*v);
    }
  }
  if (!position) {
    auto v = integer_of(*lsn);
    if (!v) return v.err();
    position = *v;
  }
  _builder.add(*position);
  const field* seq = e.source_field("sequence");
  if (!present(seq)) return std::nullopt;
  if (seq->token.kind != json_kind::string) {
    return make_error(error_code::bad_csn, "source.sequence must be a string");
  }
  return add_sequence(_builder, seq->token.text);
}

std::optional<error> debezium_ordering::add_mysql(const debezium_envelope& e) {
  const field* file = e.source_field("file");
  if (!present(file)) return missing(debezium_source::mysql, "file");
  if (file->token.kind != json_kind::string) {
    return make_error(error_code::bad_csn, "source.file must be a string");
  }
  const auto split = split_log_file(file->token.text);
  if (!split) {
    return make_error(error_code::bad_csn,
                      "source.file has no file sequence: " + excerpt(file->token.text));
  }
  auto pos = required_integer(e, "pos", debezium_source::mysql);
  if (!pos) return pos.err();
  int64_t row = 0;
  if (const field* f = e.source_field("row"); present(f)) {
    auto v = integer_of(*f);
    if (!v) return v.err();
    row = *v;
  }
  _builder.add(split->sequence).add(*pos).add(row);
  return std::nullopt;
}

std::optional<error> debezium_ordering::add_sqlserver(const debezium_envelope& e) {
  auto commit = optional_text(e, "commit_lsn");
  if (!commit) return commit.err();
  auto change = optional_text(e, "change_lsn");
  if (!change) return change.err();
  if (commit->empty() && change->empty()) {
    return missing(debezium_source::sqlserver, "change_lsn or commit_lsn");
  }
  int64_t serial = 0;
  if (const field* f = e.source_field("event_serial_no"); present(f)) {
    auto v = integer_of(*f);
    if (!v) return v.err();
    serial = *v;
  }
  _builder.add(normalize_hex_position(*commit)).add(normalize_hex_position(*change)).add(serial);
  return std::nullopt;
}

std::optional<error> debezium_ordering::add_oracle(const debezium_envelope& e) {
  auto scn = required_integer(e, "scn", debezium_source::oracle);
  if (!scn) return scn.err();
  auto rs_id = optional_text(e, "rs_id");
  if (!rs_id) return rs_id.err();
  int64_t ssn = 0;
  if (const field* f = e.source_field("ssn"); present(f)) {
    auto v = integer_of(*f);
    if (!v) return v.err();
    ssn = *v;
  }
  _builder.add(*scn).add(normalize_hex_position(*rs_id)).add(ssn);
  return std::nullopt;
}

}  // namespace sluice
