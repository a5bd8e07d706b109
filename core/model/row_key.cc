#include "core/model/row_key.h"

#include <cstring>

#include "core/model/base64.h"

namespace sluice {
namespace {

void append_escaped(std::string& out, std::string_view s) {
  // Runs between NULs are appended whole; each NUL becomes 0x00 0xff.
  while (const void* nul = std::memchr(s.data(), '\0', s.size())) {
    const size_t at = static_cast<size_t>(static_cast<const char*>(nul) - s.data());
    out.append(s.data(), at + 1);
    out.push_back(static_cast<char>(0xff));
    s.remove_prefix(at + 1);
  }
  out.append(s);
  out.push_back('\0');
  out.push_back(static_cast<char>(0x01));
}

// Whether canonical_number(text) is text itself for an integer: an optional '-', then
// digits without a leading zero ("0" alone, but not "-0"), within canonical_number's
// default bound on digits.
bool is_canonical_integer(std::string_view text) {
  const size_t start = !text.empty() && text[0] == '-' ? 1 : 0;
  const size_t digits = text.size() - start;
  if (digits == 0 || digits > 1024) return false;
  if (text[start] == '0') return digits == 1 && start == 0;
  for (size_t i = start; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  return true;
}

// A bytes key value's canonical part: that of the string holding its base64 text.
void append_bytes_canonical(std::string& canonical, std::string_view bytes) {
  canonical.push_back(static_cast<char>(value_kind::string));
  append_base64(canonical, bytes);  // base64 has no NUL: nothing to escape
  canonical.push_back('\0');
  canonical.push_back(static_cast<char>(0x01));
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
    if (v.kind == value_kind::number && is_canonical_integer(v.text)) {
      // Already canonical (most keys): nothing to rewrite.
    } else if (v.kind == value_kind::number ||
               (v.kind == value_kind::string && cls == column_class::numeric)) {
      auto canon = canonical_number(v.text);
      if (!canon) {
        return make_error(error_code::wrong_type,
                          "key column " + key.columns[i] + " is not a number: " + v.text);
      }
      v.kind = value_kind::number;
      v.text.assign(*canon);
    }
    if (v.kind == value_kind::bytes) {
      // One canonical form for a binary key however it came: as the base64 text a stream
      // without types sends (and stored tombstones and chunks hold, from before bytes were a
      // value kind), or as bytes. The value itself stays bytes, for the bytea column.
      append_bytes_canonical(key.canonical, v.text);
      continue;
    }
    key.canonical.push_back(static_cast<char>(v.kind));
    append_escaped(key.canonical, v.text);
  }
  return std::nullopt;
}

}  // namespace sluice
