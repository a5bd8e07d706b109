#include "schemas/goldengate/goldengate_binary_values.h"

#include <algorithm>

#include "core/model/base64.h"

namespace sluice {
namespace {

bool any_bytes(const column_types& types) {
  return std::any_of(types.columns.begin(), types.columns.end(),
                     [](const auto& c) { return c.type.id == type_id::bytes && !c.type.array; });
}

}  // namespace

std::optional<error> goldengate_binary_values::decode(change& c) {
  if (!c.types || !any_bytes(*c.types)) return std::nullopt;
  _values.clear();
  _names.clear();
  for (column_value& cv : c.after) {
    _values.push_back(&cv.v);
    _names.push_back(&cv.name);
  }
  for (row_key* k : {&c.key, c.old_key ? &*c.old_key : nullptr}) {
    if (!k) continue;
    for (size_t i = 0; i < k->values.size() && i < k->columns.size(); ++i) {
      _values.push_back(&k->values[i]);
      _names.push_back(&k->columns[i]);
    }
  }
  const column_types& types = *c.types;
  for (size_t i = 0; i < _values.size(); ++i) {
    value& v = *_values[i];
    if (v.kind != value_kind::string) continue;
    const column_types::column* t = types.find(*_names[i]);
    if (!t || t->type.id != type_id::bytes || t->type.array) continue;
    if (!decode_base64(v.text, _bytes)) {
      return make_error(error_code::wrong_type, "binary column \"" + *_names[i] + "\" (" +
                                                    t->source_type + ") is not base64 text");
    }
    v.kind = value_kind::bytes;
    v.text.swap(_bytes);
  }
  return std::nullopt;
}

}  // namespace sluice
