#include "core/model/row_key.h"

namespace sluice {
namespace {

void append_escaped(std::string& out, std::string_view s) {
  for (char c : s) {
    out.push_back(c);
    if (c == '\0') out.push_back(static_cast<char>(0xff));
  }
  out.push_back('\0');
  out.push_back(static_cast<char>(0x01));
}

}  // namespace

result<row_key> make_row_key(std::vector<std::string> columns, std::vector<value> values,
                             const std::vector<column_class>& classes) {
  row_key key;
  key.columns = std::move(columns);
  key.values = std::move(values);
  if (auto err = canonicalize_key(key, classes)) return std::move(*err);
  return key;
}

std::optional<error> canonicalize_key(row_key& key, const std::vector<column_class>& classes) {
  if (key.columns.size() != key.values.size()) {
    return make_error(error_code::missing_key, "key columns and values differ in count");
  }
  key.canonical.clear();
  key.canonical.reserve(16 * key.columns.size());
  for (size_t i = 0; i < key.columns.size(); ++i) {
    value& v = key.values[i];
    const column_class cls = i < classes.size() ? classes[i] : column_class::unknown;
    if (v.kind == value_kind::absent || v.kind == value_kind::null) {
      return make_error(error_code::missing_key, "key column " + key.columns[i] + " is null");
    }
    if (v.kind == value_kind::number ||
        (v.kind == value_kind::string && cls == column_class::numeric)) {
      auto canon = canonical_number(v.text);
      if (!canon) {
        return make_error(error_code::wrong_type,
                          "key column " + key.columns[i] + " is not a number: " + v.text);
      }
      v.kind = value_kind::number;
      v.text.assign(*canon);
    }
    key.canonical.push_back(static_cast<char>(v.kind));
    append_escaped(key.canonical, v.text);
  }
  return std::nullopt;
}

}  // namespace sluice
