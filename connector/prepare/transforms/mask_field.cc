#include "connector/prepare/transforms/mask_field.h"

#include <algorithm>
#include <stdexcept>

namespace sluice {
namespace {

bool integer_type(type_id id) {
  return id == type_id::int16 || id == type_id::int32 || id == type_id::int64;
}

// The empty value of a temporal type carried as text (Connect masks a Date with new Date(0)).
const char* epoch_text(type_id id) {
  switch (id) {
    case type_id::date:
      return "1970-01-01";
    case type_id::time:
      return "00:00:00";
    case type_id::timetz:
      return "00:00:00Z";
    case type_id::timestamp:
      return "1970-01-01T00:00:00";
    case type_id::timestamptz:
      return "1970-01-01T00:00:00Z";
    default:
      return nullptr;
  }
}

}  // namespace

mask_field::mask_field(const std::string& name, const transform_config& t)
    : _who("transforms." + name), _fields(t.fields.begin(), t.fields.end()) {
  if (_fields.empty()) throw std::invalid_argument(_who + ".fields: name the columns to mask");
  if (!t.replacement.empty()) _replacement = t.replacement;
}

std::optional<std::string> mask_field::mask(const column_value& cv, const column_type* type,
                                            std::string& out) const {
  const type_id id = type ? type->id : type_id::unknown;
  const std::string column = _who + ": " + cv.name;
  switch (cv.v.kind) {
    case value_kind::number:
      if (!_replacement) {
        out = "0";
      } else if (!canonical_number(*_replacement)) {
        return column + " is a number column; the replacement \"" + *_replacement +
               "\" is not a number";
      } else if (integer_type(id) && _replacement->find_first_of(".eE") != std::string::npos) {
        return column + " is an integer column; the replacement \"" + *_replacement +
               "\" is not an integer";
      } else {
        out = *_replacement;
      }
      return std::nullopt;
    case value_kind::boolean:
      if (_replacement) return column + " is a boolean: MaskField takes no replacement for it";
      out = "false";
      return std::nullopt;
    case value_kind::string:
      if (const char* epoch = epoch_text(id)) {
        if (_replacement)
          return column + " is a " + type->to_text() +
                 ": MaskField takes no replacement for it (Connect masks it to the epoch)";
        out = epoch;
      } else {
        out = _replacement.value_or("");
      }
      return std::nullopt;
    case value_kind::json:
      if (_replacement) return column + " is JSON: MaskField takes no replacement for it";
      out = cv.v.text.starts_with('[') ? "[]" : "{}";
      return std::nullopt;
    case value_kind::bytes:
      return column + " is binary, which MaskField cannot mask (as in Connect)";
    case value_kind::absent:
    case value_kind::null:
      break;
  }
  return std::nullopt;
}

std::variant<change_transform::outcome, std::string> mask_field::apply(change& c,
                                                                       const record_context&) {
  for (const std::string& k : c.key.columns) {
    if (_fields.contains(k)) {
      return _who + ": " + k + " is a key column of " +
             (c.table ? c.table->name.qualified() : std::string("the table")) +
             " and cannot be masked (the key says which row the change is)";
    }
  }
  for (column_value& cv : c.after) {
    if (!_fields.contains(cv.name) || cv.v.is_null() || cv.v.is_absent()) continue;
    std::string masked;
    const column_types::column* typed = c.types ? c.types->find(cv.name) : nullptr;
    if (auto why = mask(cv, typed ? &typed->type : nullptr, masked)) {
      return std::move(*why);
    }
    cv.v.text = std::move(masked);
  }
  return outcome::keep;
}

}  // namespace sluice
