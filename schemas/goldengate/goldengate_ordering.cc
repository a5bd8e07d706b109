#include "schemas/goldengate/goldengate_ordering.h"

#include <limits>
#include <string>

#include "schemas/common/position_parser.h"

namespace sluice {
namespace {

bool is_position(const json_token* t) {
  return t && (t->kind == json_kind::string || t->kind == json_kind::number);
}

}  // namespace

result<csn> goldengate_ordering::sequence(const json_token* csn_token, const json_token* op_seq,
                                          std::optional<timestamp_ns> op_ts, kafka_offset offset) {
  if (csn_token && csn_token->kind == json_kind::string && csn_token->text.empty()) {
    csn_token = nullptr;  // an empty csn is no csn
  }
  if (csn_token && !is_position(csn_token)) {
    return make_error(error_code::bad_csn, "csn must be a string or a number");
  }
  if (op_seq && !is_position(op_seq)) {
    return make_error(error_code::bad_csn, "the operation sequence must be a string or a number");
  }
  if (!csn_token && !op_ts) return csn{};
  _builder.add(int64_t{1});
  if (csn_token) {
    add_position(*csn_token);
    if (op_seq) {
      add_position(*op_seq);
    } else {
      _builder.add(offset.value());
    }
  } else {
    _builder.add(op_ts->value()).add(offset.value());
  }
  return _builder.build();
}

void goldengate_ordering::add_position(const json_token& token) {
  if (auto v = parse_integer(token.text)) {
    _builder.add(*v);
    return;
  }
  if (auto lsn = parse_pg_lsn(token.text);
      lsn && *lsn <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    _builder.add(static_cast<int64_t>(*lsn));
    return;
  }
  _builder.add(token.text);
}

}  // namespace sluice
