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
  if (columns.size() != values.size()) {
    return make_error(error_code::missing_key, "key columns and values differ in count");
  }
  row_key key;
  key.canonical.reserve(16 * columns.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    value& v = values[i];
    const column_class cls = i < classes.size() ? classes[i] : column_class::unknown;
    if (v.kind == value_kind::absent || v.kind == value_kind::null) {
      return make_error(error_code::missing_key, "key column " + columns[i] + " is null");
    }
    if (v.kind == value_kind::number ||
        (v.kind == value_kind::string && cls == column_class::numeric)) {
      auto canon = canonical_number(v.text);
      if (!canon) {
        return make_error(error_code::wrong_type,
                          "key column " + columns[i] + " is not a number: " + v.text);
      }
      v = value::number(*canon);
    }
    key.canonical.push_back(static_cast<char>(v.kind));
    append_escaped(key.canonical, v.text);
  }
  key.columns = std::move(columns);
  key.values = std::move(values);
  return key;
}

}  // namespace sluice
