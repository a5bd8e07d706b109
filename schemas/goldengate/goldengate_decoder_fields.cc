// What a GoldenGate DML record says of itself: its table, operation time, change sequence,
// transaction and the key columns its table uses. The rest of the decoder is in
// goldengate_decoder.cc.
#include "schemas/goldengate/goldengate_decoder.h"

#include <string>

#include "schemas/goldengate/goldengate_metadata.h"

namespace sluice {

using field = goldengate_field;

result<table_entry*> goldengate_decoder::table() {
  const slot& q = _record.get(field::qual_table);
  if (!q.given()) {
    return make_error(error_code::missing_field, "record has no " + label(field::qual_table));
  }
  if (q.token.kind != json_kind::string) {
    return make_error(error_code::wrong_type, label(field::qual_table) + " must be a string");
  }
  if (q.token.text.empty()) {
    return make_error(error_code::missing_field, label(field::qual_table) + " is empty");
  }
  if (_last_table && q.token.text == _last_qual_table) return _last_table;
  auto name = parse_qual_table(q.token.text);
  if (!name) return name.err();
  _last_table = _catalog.intern(*name);
  _last_qual_table.assign(q.token.text);
  if (auto [it, first] = _seen.try_emplace(std::move(*name), _last_table); first) {
    // A table met for the first time: its JSON Schema record, if one came, types it.
    if (const auto* columns = schema_columns(it->first)) apply_schema(*_last_table, *columns);
  }
  return _last_table;
}

result<std::optional<timestamp_ns>> goldengate_decoder::op_ts() const {
  const slot& s = _record.get(field::op_ts);
  if (!s.given()) return std::optional<timestamp_ns>{};
  // The error is built only when needed: its message would be a heap allocation per record.
  if (s.token.kind != json_kind::string && s.token.kind != json_kind::number) {
    return make_error(error_code::wrong_type,
                      label(field::op_ts) + ": must be a string or a number");
  }
  result<timestamp_ns> ts = s.token.kind == json_kind::string ? parse_timestamp(s.token.text, _zone)
                                                              : parse_epoch_millis(s.token.text);
  if (!ts) return in_context(label(field::op_ts), ts.err());
  return std::optional<timestamp_ns>{*ts};
}

result<csn> goldengate_decoder::sequence(std::optional<timestamp_ns> ts, kafka_offset offset) {
  const json_token* parts[2] = {nullptr, nullptr};
  const field names[2] = {field::csn, field::op_seq};
  for (int i = 0; i < 2; ++i) {
    const slot& s = _record.get(names[i]);
    if (!s.given()) continue;
    if (s.token.kind != json_kind::string && s.token.kind != json_kind::number) {
      return make_error(error_code::bad_csn, label(names[i]) + " must be a string or a number");
    }
    parts[i] = &s.token;
  }
  return _ordering.sequence(parts[0], parts[1], ts, offset);
}

result<std::string_view> goldengate_decoder::transaction() const {
  const slot& s = _record.get(field::xid);
  if (!s.given()) return std::string_view();
  if (!s.token.is_scalar()) {
    return make_error(error_code::wrong_type, label(field::xid) + " must be a string");
  }
  return s.token.text;
}

result<const std::vector<std::string>*> goldengate_decoder::key_columns(const table_entry& t) {
  if (t.key_configured) return &t.key_columns;
  _key_columns.clear();
  if (const auto* pk = _record.find("primary_keys"); pk && pk->token.kind != json_kind::null) {
    const auto wrong = [] {
      return make_error(error_code::wrong_type, "primary_keys must be an array of column names");
    };
    if (pk->token.kind == json_kind::string) {
      _key_columns.emplace_back(pk->token.text);
    } else if (pk->token.kind == json_kind::array) {
      for (const json_leaf& leaf : _record.leaves_of(*pk)) {
        if (leaf.token.kind != json_kind::string || leaf.token.text.empty()) return wrong();
        _key_columns.emplace_back(leaf.token.text);
      }
    } else {
      return wrong();
    }
    if (!_key_columns.empty()) return &_key_columns;
  }
  if (!t.key_columns.empty()) return &t.key_columns;
  return &_options.default_key_columns;
}

}  // namespace sluice
