#include "connector/http/status_json.h"

#include <cstdio>
#include <ctime>
#include <type_traits>

#include "core/model/json_text.h"

namespace sluice {
namespace {

void append_state(std::string& out, const connector_status& s, std::string_view worker_id) {
  out += "\"state\":";
  append_json_string(out, to_string(s.state));
  out += ",\"worker_id\":";
  append_json_string(out, worker_id);
  if (s.state == connector_state::failed) {
    out += ",\"trace\":";
    append_json_string(out, s.last_error);
  }
}

// 2026-07-13T04:01:01.123Z
std::string iso_utc(int64_t ms) {
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[80];  // room for any int the fields may hold: no truncation warning
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

template <typename T>
void append_optional(std::string& out, const std::optional<T>& v) {
  if (v) {
    if constexpr (std::is_integral_v<T>) {
      out += std::to_string(*v);
    } else {
      out += std::to_string(v->value());
    }
  } else {
    out += "null";
  }
}

}  // namespace

std::string to_json(const connector_status& s, std::string_view worker_id) {
  std::string out;
  out.reserve(256 + 128 * s.assigned.size());
  out += "{\"name\":";
  append_json_string(out, s.name);
  out += ",\"connector\":{";
  append_state(out, s, worker_id);
  out += "},\"tasks\":[";
  if (s.members.empty()) {
    out += "{\"id\":0,";
    append_state(out, s, worker_id);
    out += '}';
  }
  for (size_t i = 0; i < s.members.size(); ++i) {
    const member_status& m = s.members[i];
    if (i > 0) out += ',';
    out += "{\"id\":" + std::to_string(i) + ",\"state\":";
    append_json_string(out, m.state);
    out += ",\"worker_id\":";
    append_json_string(out, m.worker_id);
    if (!m.trace.empty()) {
      out += ",\"trace\":";
      append_json_string(out, m.trace);
    }
    out += '}';
  }
  out += "],\"type\":\"sink\",\"assigned\":[";
  bool first = true;
  for (const partition_status& p : s.assigned) {
    if (!first) out += ',';
    first = false;
    out += "{\"topic\":";
    append_json_string(out, p.topic);
    out += ",\"partition\":";
    out += std::to_string(p.partition.value());
    out += ",\"committed_offset\":";
    append_optional(out, p.committed);
    out += ",\"high_watermark\":";
    append_optional(out, p.high_watermark);
    out += ",\"lag\":";
    append_optional(out, p.lag());
    out += '}';
  }
  out += "],\"last_error\":";
  if (s.last_error.empty()) {
    out += "null";
  } else {
    append_json_string(out, s.last_error);
  }
  if (!s.degraded_reason.empty()) {
    out += ",\"degraded\":{\"since\":";
    append_json_string(out, iso_utc(s.degraded_since_ms));
    out += ",\"reason\":";
    append_json_string(out, s.degraded_reason);
    out += '}';
  }
  if (!s.failed_tables.empty()) {
    out += ",\"failed_tables\":[";
    for (size_t i = 0; i < s.failed_tables.size(); ++i) {
      const failed_table_status& t = s.failed_tables[i];
      if (i > 0) out += ',';
      out += "{\"table\":";
      append_json_string(out, t.table);
      out += ",\"error\":";
      append_json_string(out, t.error);
      out += ",\"since\":";
      append_json_string(out, iso_utc(t.since_ms));
      out += ",\"last\":";
      append_json_string(out, iso_utc(t.last_ms));
      out += ",\"dead_lettered\":" + std::to_string(t.dead_lettered) + '}';
    }
    out += ']';
  }
  out += '}';
  return out;
}

}  // namespace sluice
