#include "sinks/plan/change_dead_letter.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "sinks/plan/json_text.h"

namespace sluice {
namespace {

void append_field(std::string& out, const char* name) {
  if (out.size() > 1) out.push_back(',');
  append_json_string(out, name);
  out.push_back(':');
}

void append_image(std::string& out, const image& img) {
  out.push_back('{');
  bool first = true;
  for (const column_value& cv : img) {
    if (cv.v.is_absent()) continue;
    if (!first) out.push_back(',');
    first = false;
    append_json_string(out, cv.name);
    out.push_back(':');
    append_json_value(out, cv.v);
  }
  out.push_back('}');
}

// Which values of a dead letter are bytes. JSON has no bytes: they print as base64 strings
// (append_json_value), and the letter's "bytes_columns" list tells them from strings.
class bytes_columns {
 public:
  void note(const std::string& name, const value& v) {
    if (v.kind != value_kind::bytes) return;
    if (std::find(_names.begin(), _names.end(), name) == _names.end()) _names.push_back(name);
  }
  // "bytes_columns": [...], when there are any.
  void append_to(std::string& out) const {
    if (_names.empty()) return;
    append_field(out, "bytes_columns");
    out.push_back('[');
    for (size_t i = 0; i < _names.size(); ++i) {
      if (i > 0) out.push_back(',');
      append_json_string(out, _names[i]);
    }
    out.push_back(']');
  }

 private:
  std::vector<std::string_view> _names;
};

std::string table_label(const table_rows& t) {
  return t.table ? t.table->name.qualified() : std::string();
}

dead_letter addressed(std::string reason, dead_letter_kind kind, const target_table* target) {
  dead_letter dl;
  dl.reason = std::move(reason);
  dl.kind = kind;
  if (target) {
    dl.target_schema = target->schema;
    dl.target_table = target->name;
  }
  return dl;
}

// "source": [database, schema, table] (the label alone is ambiguous when a part is empty),
// and "types": {"column": "decimal(12,2)", ...} for the columns the stream typed (the newest
// schema of the batch naming each), so that a replayed letter creates and evolves its table
// as the stream would have.
void append_source_and_types(std::string& out, const table_rows& t,
                             const std::vector<std::string_view>& columns) {
  if (!t.table) return;
  const table_name& n = t.table->name;
  append_field(out, "source");
  out.push_back('[');
  append_json_string(out, n.database);
  out.push_back(',');
  append_json_string(out, n.schema);
  out.push_back(',');
  append_json_string(out, n.table);
  out.push_back(']');
  bool any = false;
  for (const std::string_view name : columns) {
    const column_types::column* typed = nullptr;
    for (auto it = t.types.rbegin(); it != t.types.rend() && !typed; ++it)
      typed = *it ? (*it)->find(name) : nullptr;
    if (!typed || !typed->type.known()) continue;
    if (!any) {
      append_field(out, "types");
      out.push_back('{');
    } else {
      out.push_back(',');
    }
    any = true;
    append_json_string(out, name);
    out.push_back(':');
    append_json_string(out, typed->type.to_text());
  }
  if (any) out.push_back('}');
}

}  // namespace

dead_letter merged_row_dead_letter(const table_rows& table, const merged_row& row,
                                   std::string reason, dead_letter_kind kind,
                                   const target_table* target) {
  dead_letter dl = addressed(std::move(reason), kind, target);
  dl.origin = row.origin;
  dl.key = key_json(row.key.columns, row.key.values);
  std::string v = "{";
  append_field(v, "table");
  append_json_string(v, table_label(table));
  append_field(v, "op");
  append_json_string(v, row.exists() ? "upsert" : "delete");
  append_field(v, "key");
  v += *dl.key;
  append_field(v, "upsert_csn");
  append_json_string(v, row.upsert_seq.hex());
  append_field(v, "delete_csn");
  append_json_string(v, row.delete_seq.hex());
  append_field(v, "partial");
  v += row.partial ? "true" : "false";
  append_field(v, "image");
  v.push_back('{');
  bool per_column = false;
  for (size_t i = 0; i < row.columns.size(); ++i) {
    if (i > 0) v.push_back(',');
    append_json_string(v, row.columns[i].name);
    v.push_back(':');
    append_json_value(v, row.columns[i].v);
    per_column = per_column || row.columns[i].seq != row.upsert_seq;
  }
  v.push_back('}');
  bytes_columns bytes;
  for (size_t i = 0; i < row.key.columns.size() && i < row.key.values.size(); ++i)
    bytes.note(row.key.columns[i], row.key.values[i]);
  for (const merged_column& c : row.columns)
    bytes.note(c.name, c.v);
  bytes.append_to(v);
  if (per_column) {
    append_field(v, "column_csns");
    v.push_back('{');
    for (size_t i = 0; i < row.columns.size(); ++i) {
      if (i > 0) v.push_back(',');
      append_json_string(v, row.columns[i].name);
      v.push_back(':');
      append_json_string(v, row.columns[i].seq.hex());
    }
    v.push_back('}');
  }
  std::vector<std::string_view> names(row.key.columns.begin(), row.key.columns.end());
  for (const merged_column& c : row.columns)
    names.push_back(c.name);
  append_source_and_types(v, table, names);
  v.push_back('}');
  dl.value = std::move(v);
  return dl;
}

dead_letter keyless_dead_letter(const table_rows& table, const change& c, std::string reason,
                                dead_letter_kind kind, const target_table* target) {
  dead_letter dl = addressed(std::move(reason), kind, target);
  dl.origin = c.source.origin;
  std::string v = "{";
  append_field(v, "table");
  append_json_string(v, table_label(table));
  append_field(v, "op");
  append_json_string(v, to_string(c.op));
  append_field(v, "csn");
  append_json_string(v, c.seq.hex());
  // Its place in its message: a replay appends it at its own position, not a sibling's.
  if (c.source.origin.index != message_origin::no_index) {
    append_field(v, "index");
    v += std::to_string(c.source.origin.index);
  }
  append_field(v, "image");
  append_image(v, c.after);
  bytes_columns bytes;
  for (const column_value& cv : c.after)
    bytes.note(cv.name, cv.v);
  bytes.append_to(v);
  std::vector<std::string_view> names;
  for (const column_value& cv : c.after)
    if (!cv.v.is_absent()) names.push_back(cv.name);
  append_source_and_types(v, table, names);
  v.push_back('}');
  dl.value = std::move(v);
  return dl;
}

}  // namespace sluice
