#include "connector/cli/change_json.h"

#include "core/model/json_text.h"

#include <cstdio>
#include <ctime>
#include <variant>

namespace sluice {
namespace {

void append_key(std::string& out, const row_key& k) {
  out.push_back('{');
  for (size_t i = 0; i < k.columns.size(); ++i) {
    if (i) out.push_back(',');
    append_json_string(out, k.columns[i]);
    out.push_back(':');
    append_json_value(out, k.values[i]);
  }
  out.push_back('}');
}

void append_csn(std::string& out, const csn& seq) {
  out += "\"csn\":";
  append_json_string(out, seq.hex());
  out += ",\"csn_parts\":[";
  bool first = true;
  for (const csn_part& p : seq.parts()) {
    if (!first) out.push_back(',');
    first = false;
    if (const auto* i = std::get_if<int64_t>(&p)) {
      out += std::to_string(*i);
    } else {
      append_json_string(out, std::get<std::string>(p));
    }
  }
  out.push_back(']');
}

void append_origin(std::string& out, const message_origin& o) {
  out += "\"topic\":";
  append_json_string(out, o.topic);
  out += ",\"partition\":" + std::to_string(o.partition.value());
  out += ",\"offset\":" + std::to_string(o.offset.value());
}

void append_names(std::string& out, const std::vector<std::string>& names) {
  out.push_back('[');
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out.push_back(',');
    append_json_string(out, names[i]);
  }
  out.push_back(']');
}

const char* class_name(column_class c) {
  switch (c) {
    case column_class::numeric:
      return "numeric";
    case column_class::text:
      return "text";
    case column_class::boolean:
      return "boolean";
    case column_class::other:
      return "other";
    case column_class::unknown:
      break;
  }
  return "unknown";
}

}  // namespace

std::string format_timestamp(timestamp_ns ts) {
  const int64_t ns = ts.value();
  int64_t secs = ns / 1'000'000'000;
  int64_t frac = ns % 1'000'000'000;
  if (frac < 0) {
    frac += 1'000'000'000;
    --secs;
  }
  const std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(frac / 1000));
  return buf;
}

void append_change_json(std::string& out, const change& c) {
  out += "{\"table\":";
  append_json_string(out, c.table ? c.table->name.qualified() : std::string());
  out += ",\"op\":";
  append_json_string(out, to_string(c.op));
  out += ",\"key\":";
  if (c.key.empty()) {
    out += "null";
  } else {
    append_key(out, c.key);
  }
  out += ",\"old_key\":";
  if (c.old_key) {
    append_key(out, *c.old_key);
  } else {
    out += "null";
  }
  out.push_back(',');
  append_csn(out, c.seq);
  out += ",\"image\":{";
  bool first = true;
  for (const column_value& cv : c.after) {
    if (cv.v.is_absent()) continue;
    if (!first) out.push_back(',');
    first = false;
    append_json_string(out, cv.name);
    out.push_back(':');
    append_json_value(out, cv.v);
  }
  out += "},\"source\":{\"tx\":";
  append_json_string(out, c.source.tx);
  out += ",\"ts\":";
  append_json_string(out, format_timestamp(c.source.source_ts));
  out += ",\"read\":";
  out += c.source.read == read_method::cdc ? "\"cdc\"" : "\"backfill\"";
  out.push_back(',');
  append_origin(out, c.source.origin);
  out += "}}";
}

void append_chunk_piece_json(std::string& out, const chunk_piece& p) {
  out += "{\"chunk\":{\"chunk_id\":";
  append_json_string(out, p.chunk_id);
  if (p.is_principal()) {
    out += ",\"piece\":\"principal\",\"total_fragments\":" + std::to_string(p.total_fragments) +
           ",\"crc32c\":\"" + std::to_string(p.crc32c) + "\"";
  } else {
    out += ",\"piece\":" + std::to_string(p.index);
  }
  out += ",\"bytes\":" + std::to_string(p.payload.size()) + ",\"source\":{";
  append_origin(out, p.origin);
  out += "}}}";
}

void append_catalog_update_json(std::string& out, const catalog_update& u) {
  out += "{\"catalog\":{\"table\":";
  append_json_string(out, u.table.qualified());
  out += ",\"key\":";
  append_names(out, u.key_columns);
  out += ",\"columns\":[";
  for (size_t i = 0; i < u.columns.size(); ++i) {
    const column_info& col = u.columns[i];
    if (i) out.push_back(',');
    out += "{\"name\":";
    append_json_string(out, col.name);
    out += ",\"type\":";
    append_json_string(out, col.source_type);
    out += ",\"portable_type\":";
    append_json_string(out, col.type.to_text());
    out += ",\"class\":";
    append_json_string(out, class_name(col.cls));
    out += col.nullable ? ",\"nullable\":true" : ",\"nullable\":false";
    out += col.key ? ",\"key\":true}" : ",\"key\":false}";
  }
  out += "],\"learned_from\":";
  append_json_string(out, u.learned_from);
  out.push_back(',');
  append_csn(out, u.seq);
  out += ",\"source\":{";
  append_origin(out, u.origin);
  out += "}}}";
}

void append_ddl_json(std::string& out, const ddl_record& d) {
  out += "{\"ddl\":{\"table\":";
  append_json_string(out, d.table.qualified());
  out += ",\"statement\":";
  append_json_string(out, d.statement);
  out.push_back(',');
  append_csn(out, d.seq);
  out += ",\"source\":{\"ts\":";
  append_json_string(out, format_timestamp(d.source_ts));
  out.push_back(',');
  append_origin(out, d.origin);
  out += "}}}";
}

}  // namespace sluice
