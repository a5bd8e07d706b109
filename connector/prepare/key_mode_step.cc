#include "connector/prepare/key_mode_step.h"

#include <algorithm>
#include <memory>

#include "connector/prepare/transforms/value_to_key.h"

namespace sluice {
namespace {

// Connect's names for the position columns of primary.key.mode kafka.
constexpr const char* connect_topic = "__connect_topic";
constexpr const char* connect_partition = "__connect_partition";
constexpr const char* connect_offset = "__connect_offset";

std::string table_of(const change& c) {
  return c.table ? c.table->name.qualified() : std::string("the table");
}

// Sets `name` in the image (added, or its value replaced).
void put(image& row, const std::string& name, value v) {
  for (column_value& cv : row) {
    if (cv.name == name) {
      cv.v = std::move(v);
      return;
    }
  }
  row.push_back({name, std::move(v)});
}

// The types of `from` with `added` typed too (replacing any of their names).
shared_column_types with_columns(const shared_column_types& from,
                                 const std::vector<std::pair<std::string, type_id>>& added) {
  auto out = from ? std::make_shared<column_types>(*from) : std::make_shared<column_types>();
  for (const auto& [name, id] : added) {
    std::erase_if(out->columns, [&](const column_types::column& t) { return t.name == name; });
    column_type type;
    type.id = id;
    out->columns.push_back({name, type, {}});
  }
  return out;
}

}  // namespace

key_mode_step::key_mode_step(const config& c)
    : _mode(c.primary_key_mode),
      _append(c.insert == insert_mode::insert || c.primary_key_mode == key_mode::kafka ||
              c.primary_key_mode == key_mode::none),
      _none(!_append && c.primary_key_mode == key_mode::record_key && c.primary_key_fields.empty()),
      _skip_deletes(_append || c.primary_key_mode != key_mode::record_key),
      _fields(c.primary_key_fields),
      _who("primary.key.mode " + std::string(to_string(c.primary_key_mode))) {}

std::optional<std::string> key_mode_step::keep_key_fields(change& c) const {
  if (_fields.empty() || c.op == op_kind::truncate) return std::nullopt;
  for (row_key* key : {&c.key, c.old_key ? &*c.old_key : nullptr}) {
    if (key == nullptr) continue;
    row_key kept;
    for (const std::string& f : _fields) {
      const auto at = std::find(key->columns.begin(), key->columns.end(), f);
      if (at == key->columns.end()) {
        return _who + ": " + f + " (primary.key.fields) is not a key column of " + table_of(c) +
               (key->columns.empty() ? std::string(", which has no key") : "");
      }
      kept.columns.push_back(f);
      kept.values.push_back(key->values[static_cast<size_t>(at - key->columns.begin())]);
    }
    if (auto err = canonicalize_key(kept)) return _who + ": " + err->message;
    *key = std::move(kept);
  }
  return std::nullopt;
}

std::optional<std::string> key_mode_step::key_from_headers(change& c, const raw_message& raw) {
  if (c.op == op_kind::truncate) return std::nullopt;
  row_key key;
  const auto add = [&](std::string_view name, const std::optional<std::string_view>& v) {
    if (!v) return false;
    key.columns.emplace_back(name);
    key.values.push_back(value::string(*v));
    return true;
  };
  if (_fields.empty()) {
    for (const auto& [name, v] : raw.headers) {
      if (std::find(key.columns.begin(), key.columns.end(), name) != key.columns.end())
        return _who + ": the message has two headers " + std::string(name);
      if (!add(name, v)) return _who + ": header " + std::string(name) + " is null";
    }
    if (key.columns.empty()) return _who + ": the message has no headers to key its row by";
  } else {
    for (const std::string& f : _fields) {
      const auto h = std::find_if(raw.headers.begin(), raw.headers.end(),
                                  [&](const auto& header) { return header.first == f; });
      if (h == raw.headers.end()) return _who + ": the message has no header " + f;
      if (!add(f, h->second)) return _who + ": header " + f + " is null";
    }
  }
  if (auto err = canonicalize_key(key)) return _who + ": " + err->message;
  // The key's columns are the row's too (Connect writes them), typed as text.
  std::vector<std::pair<std::string, type_id>> typed;
  for (size_t i = 0; i < key.columns.size(); ++i) {
    put(c.after, key.columns[i], key.values[i]);
    typed.emplace_back(key.columns[i], type_id::string);
  }
  if (c.types) {
    c.types = _types.of(c.types,
                        [&](const shared_column_types& from) { return with_columns(from, typed); });
  }
  c.old_key.reset();  // the headers name the row; a key change in the source is not one here
  c.key = std::move(key);
  return std::nullopt;
}

void key_mode_step::add_position(change& c, std::string_view topic) {
  if (c.op == op_kind::truncate) return;
  const message_origin& o = c.source.origin;
  put(c.after, connect_topic, value::string(topic));
  put(c.after, connect_partition, value::number(std::to_string(o.partition.value())));
  put(c.after, connect_offset, value::number(std::to_string(o.offset.value())));
  c.types = _types.of(c.types, [](const shared_column_types& from) {
    return with_columns(from, {{connect_topic, type_id::string},
                               {connect_partition, type_id::int32},
                               {connect_offset, type_id::int64}});
  });
}

std::variant<change_transform::outcome, std::string> key_mode_step::apply(change& c,
                                                                          const raw_message& raw,
                                                                          std::string_view topic) {
  if (_none) return change_transform::outcome::keep;
  // A truncate keeps its scope (a shard's, ByLogicalTableRouter) and goes as it came.
  if (c.op == op_kind::truncate) return change_transform::outcome::keep;
  // A delete is applied by the record's key only (delete.enabled requires record_key, as in
  // Connect): under any other mode, or appending, it is skipped, as the peers skip it — its
  // image is often the key alone, nothing to key a row by nor to append. (ExtractNewRecordState
  // with a rewrite mode keeps deletes as rows, __deleted true, before this runs.)
  if (c.op == op_kind::remove && _skip_deletes) return change_transform::outcome::drop;
  std::optional<std::string> why;
  switch (_mode) {
    case key_mode::record_key:
      why = keep_key_fields(c);
      break;
    case key_mode::record_value:
      if (!_fields.empty()) {
        why = rekey_from_value(c, _fields, _who);
      } else if (c.op != op_kind::truncate) {
        _names.clear();
        for (const column_value& cv : c.after) {
          if (!cv.v.is_absent()) _names.push_back(cv.name);
        }
        why = _names.empty() ? _who + ": a change of " + table_of(c) + " carries no columns"
                             : rekey_from_value(c, _names, _who);
      }
      break;
    case key_mode::record_header:
      why = key_from_headers(c, raw);
      break;
    case key_mode::kafka:
      add_position(c, topic);
      break;
    case key_mode::none:
      break;
  }
  if (why) return std::move(*why);
  if (_append) {
    c.key = row_key{};
    c.old_key.reset();
  }
  return change_transform::outcome::keep;
}

}  // namespace sluice
