#include "sinks/plan/catalog_json.h"

#include <map>

#include "sinks/plan/json_text.h"

namespace sluice {
namespace {

const char* class_name(column_class c) {
  switch (c) {
    case column_class::unknown:
      break;
    case column_class::numeric:
      return "numeric";
    case column_class::text:
      return "text";
    case column_class::boolean:
      return "boolean";
    case column_class::other:
      return "other";
  }
  return "unknown";
}

column_class class_of(std::string_view name) {
  for (column_class c :
       {column_class::numeric, column_class::text, column_class::boolean, column_class::other}) {
    if (name == class_name(c)) return c;
  }
  return column_class::unknown;
}

}  // namespace

column_class stored_column_class(std::string_view name) {
  return class_of(name);
}

std::string catalog_columns_json(const std::vector<column_info>& columns) {
  std::string out = "[";
  for (const column_info& c : columns) {
    if (out.size() > 1) out += ", ";
    out += "{\"name\": ";
    append_json_string(out, c.name);
    out += ", \"type\": ";
    append_json_string(out, c.source_type);
    out += ", \"class\": \"";
    out += class_name(c.cls);
    out += "\", \"nullable\": ";
    out += c.nullable ? "true" : "false";
    out += ", \"key\": ";
    out += c.key ? "true" : "false";
    out += ", \"portable_type\": ";
    append_json_string(out, c.type.to_text());
    out += "}";
  }
  return out + "]";
}

column_type stored_portable_type(std::optional<std::string_view> text) {
  if (!text) return {};
  return column_type::parse(*text).value_or(column_type{});
}

std::vector<const catalog_update*> newest_per_table(const std::vector<catalog_update>& updates) {
  std::map<table_name, const catalog_update*> newest;
  for (const catalog_update& u : updates) {
    auto [it, inserted] = newest.emplace(u.table, &u);
    if (inserted) continue;
    const catalog_update& kept = *it->second;
    const bool older = !u.seq.empty() && !kept.seq.empty() && u.seq < kept.seq;
    if (!older) it->second = &u;
  }
  std::vector<const catalog_update*> out;
  out.reserve(newest.size());
  for (const auto& [_, u] : newest)
    out.push_back(u);
  return out;
}

}  // namespace sluice
