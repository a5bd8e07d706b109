#include "integration/support/datastream_events.h"

#include <cstdio>

namespace sluice::testing {

std::string format_lsn(uint64_t lsn) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%X/%X", static_cast<unsigned>(lsn >> 32),
                static_cast<unsigned>(lsn & 0xffffffffu));
  return buf;
}

std::string datastream_event::json() const {
  const bool deleted = change_type == "DELETE";
  const int64_t ts =
      source_timestamp_ms ? source_timestamp_ms : 1'767'225'600'000 + static_cast<int64_t>(lsn);
  std::string s;
  s += "{\"uuid\":\"00000000-0000-4000-8000-" + std::to_string(100000000000 + lsn) + "\",";
  s += "\"read_timestamp\":\"2026-01-01T00:00:01.000Z\",";
  s += "\"source_timestamp\":" + std::to_string(ts) + ",";
  s += "\"object\":\"" + schema + "_" + table + "\",";
  s += "\"read_method\":\"postgresql-cdc\",";
  s += "\"stream_name\":\"projects/p/locations/l/streams/s\",";
  s += "\"schema_key\":\"k\",";
  s += "\"sort_keys\":[" + std::to_string(ts) + ",\"" + format_lsn(lsn) + "\"],";
  s += "\"source_metadata\":{\"schema\":\"" + schema + "\",\"table\":\"" + table + "\",";
  s += "\"is_deleted\":" + std::string(deleted ? "true" : "false") + ",";
  s += "\"change_type\":\"" + change_type + "\",";
  // No primary key: a keyless table's event.
  s += "\"primary_keys\":[" + (primary_key.empty() ? "" : "\"" + primary_key + "\"") + "],";
  s += "\"lsn\":\"" + format_lsn(lsn) + "\",\"tx_id\":" + std::to_string(lsn) + "},";
  s += "\"payload\":{" + payload_json + "}}";
  return s;
}

kafka_record datastream_record(const std::string& schema, const std::string& table, int id,
                               uint64_t lsn, const std::string& more) {
  datastream_event e;
  e.schema = schema;
  e.table = table;
  e.lsn = lsn;
  e.payload_json = "\"id\":" + std::to_string(id) + more;
  return {std::to_string(id), e.json(), 0};
}

std::vector<kafka_record> datastream_rows(const std::string& table, int first_id, int count) {
  std::vector<kafka_record> out;
  for (int id = first_id; id < first_id + count; ++id) {
    datastream_event e;
    e.table = table;
    e.lsn = 100 + static_cast<uint64_t>(id);
    e.payload_json = "\"id\":" + std::to_string(id) + ",\"v\":" + std::to_string(id);
    out.push_back({std::to_string(id), e.json(), 0});
  }
  return out;
}

}  // namespace sluice::testing
