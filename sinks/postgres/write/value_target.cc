#include "sinks/postgres/write/value_target.h"

#include "core/model/base64.h"
#include "core/model/json_text.h"
#include "sinks/postgres/sql/pg_array_literal.h"

namespace sluice {

value_target target_of(std::string_view pg_type) {
  if (pg_type == "bytea") return value_target::bytea;
  if (pg_type == "json" || pg_type == "jsonb") return value_target::json;
  if (pg_type == "bytea[]") return value_target::bytea_array;
  if (pg_type.size() > 2 && pg_type.substr(pg_type.size() - 2) == "[]") return value_target::array;
  return value_target::plain;
}

rendered_value render_value(const value& v, value_target t, std::string& scratch) {
  using form = rendered_value::form;
  if (v.is_null() || v.is_absent()) return {};
  if (t == value_target::json) {
    scratch.clear();
    append_json_value(scratch, v);
    return {form::text, scratch};
  }
  if (v.kind == value_kind::bytes) {
    if (t == value_target::bytea) return {form::bytea, v.text};
    scratch.clear();
    append_base64(scratch, v.text);
    return {form::text, scratch};
  }
  const bool array = t == value_target::array || t == value_target::bytea_array;
  if (array && v.kind == value_kind::json && !v.text.empty() && v.text.front() == '[') {
    scratch.clear();
    const array_elements elements =
        t == value_target::bytea_array ? array_elements::base64_bytes : array_elements::text;
    if (append_pg_array_literal(scratch, v.text, elements)) return {form::text, scratch};
  }
  return {form::text, v.text};
}

}  // namespace sluice
