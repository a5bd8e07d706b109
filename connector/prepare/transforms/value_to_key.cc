#include "connector/prepare/transforms/value_to_key.h"

#include <algorithm>
#include <stdexcept>

namespace sluice {
namespace {

// How a key column's values are canonicalized: numbers as numbers whatever their spelling,
// text as text (a numeric string stays text unless the column is typed as a number).
column_class class_of(const change& c, const std::string& column, const value& v) {
  if (const column_types::column* t = c.types ? c.types->find(column) : nullptr) {
    switch (t->type.id) {
      case type_id::int16:
      case type_id::int32:
      case type_id::int64:
      case type_id::float32:
      case type_id::float64:
      case type_id::decimal:
        return column_class::numeric;
      case type_id::boolean:
        return column_class::boolean;
      case type_id::string:
      case type_id::text:
        return column_class::text;
      default:
        break;
    }
  }
  switch (v.kind) {
    case value_kind::number:
      return column_class::numeric;
    case value_kind::boolean:
      return column_class::boolean;
    case value_kind::string:
      return column_class::text;
    default:
      return column_class::other;
  }
}

std::string table_of(const change& c) {
  return c.table ? c.table->name.qualified() : std::string("the table");
}

// Fills `key` with `fields` from `row`, then from `fallback`; why not.
std::optional<std::string> fill(row_key& key, const std::vector<std::string>& fields,
                                const image& row, const row_key* fallback, const change& c,
                                const std::string& who) {
  key.columns = fields;
  key.values.clear();
  std::vector<column_class> classes;
  for (const std::string& field : fields) {
    const value* found = nullptr;
    for (const column_value& cv : row) {
      if (cv.name == field && !cv.v.is_absent()) found = &cv.v;
    }
    if (found == nullptr && fallback != nullptr) {
      const auto at = std::find(fallback->columns.begin(), fallback->columns.end(), field);
      if (at != fallback->columns.end()) found = &fallback->values[at - fallback->columns.begin()];
    }
    if (found == nullptr) {
      return who + ": " + field + " is not in the " +
             (c.op == op_kind::upsert ? "row" : "deleted row or its key") + " of " + table_of(c) +
             ", and the key is made of it";
    }
    if (found->is_null())
      return who + ": " + field + " is null in a change of " + table_of(c) +
             ", and a key value cannot be";
    key.values.push_back(*found);
    classes.push_back(class_of(c, field, *found));
  }
  if (auto err = canonicalize_key(key, classes)) return who + ": " + err->message;
  return std::nullopt;
}

}  // namespace

value_to_key::value_to_key(const std::string& name, const transform_config& t)
    : _who("transforms." + name), _fields(t.fields) {
  if (_fields.empty()) throw std::invalid_argument(_who + ".fields: name the key's columns");
  for (size_t i = 0; i < _fields.size(); ++i) {
    if (std::find(_fields.begin(), _fields.begin() + static_cast<ptrdiff_t>(i), _fields[i]) !=
        _fields.begin() + static_cast<ptrdiff_t>(i))
      throw std::invalid_argument(_who + ".fields: " + _fields[i] + " is named twice");
  }
}

std::variant<change_transform::outcome, std::string> value_to_key::apply(change& c,
                                                                         const record_context&) {
  if (auto why = rekey_from_value(c, _fields, _who)) return std::move(*why);
  return outcome::keep;
}

std::optional<std::string> rekey_from_value(change& c, const std::vector<std::string>& fields,
                                            const std::string& who) {
  if (c.op == op_kind::truncate) return std::nullopt;
  if (c.old_key) {
    // The row a key change leaves, named by the new key: only its old key's values are known.
    // Where the fields are not among them it cannot be named, as in Connect, whose sinks see
    // no key change: the change is then an upsert of the row under its new key.
    row_key left = std::move(*c.old_key);
    c.old_key.emplace();
    const bool named = std::all_of(fields.begin(), fields.end(), [&](const std::string& f) {
      return std::find(left.columns.begin(), left.columns.end(), f) != left.columns.end();
    });
    if (!named) {
      c.old_key.reset();
    } else if (auto why = fill(*c.old_key, fields, {}, &left, c, who)) {
      return why;
    }
  }
  row_key came_with = std::move(c.key);
  c.key = row_key{};
  if (auto why = fill(c.key, fields, c.after, &came_with, c, who)) return why;
  if (c.old_key && *c.old_key == c.key) c.old_key.reset();  // the new key did not change
  return std::nullopt;
}

}  // namespace sluice
