#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tests/schemas/avro_builder.h"

namespace sluice::avro_build {

// The messages of issue 25 ("a small message never decodes into a huge one") and the valid
// events beside them: Datastream events in containers, Debezium envelopes in Confluent frames.
// fuzz/scripts/make_bound_seeds.py writes the same bytes into the fuzz corpus (a unit test
// compares them).

// A Datastream event as the hostile tests write it: read_method, source_metadata {database,
// table, primary_keys}, payload {id, name} and, where named, one more field of `extra_type`:
// at the top level (walked over: skip()), in source_metadata as sort_keys (its items kept as
// leaves) or in the payload as a column (read as JSON text).
enum class extra_at : uint8_t { none, top_level, sort_keys, payload };

inline std::string event_schema(extra_at at = extra_at::none, std::string_view extra_type = "") {
  const std::string extra(extra_type);
  std::string s = R"({"type":"record","name":"e","fields":[)";
  s += R"({"name":"read_method","type":"string"},)";
  if (at == extra_at::top_level) s += R"({"name":"padding","type":)" + extra + "},";
  s += R"({"name":"source_metadata","type":{"type":"record","name":"m","fields":[)";
  s += R"({"name":"database","type":"string"},{"name":"table","type":"string"},)";
  s += R"({"name":"primary_keys","type":{"type":"array","items":"string"}})";
  if (at == extra_at::sort_keys) s += R"(,{"name":"sort_keys","type":)" + extra + "}";
  s += "]}},";
  s += R"({"name":"payload","type":{"type":"record","name":"p","fields":[)";
  s += R"({"name":"id","type":"long"},{"name":"name","type":"string"})";
  if (at == extra_at::payload) s += R"(,{"name":"extra","type":)" + extra + "}";
  s += "]}}]}";
  return s;
}

// One record of event_schema(at, …): its extra field's bytes are `extra` as given.
inline std::string event_record(int64_t id, std::string_view name, extra_at at = extra_at::none,
                                std::string_view extra = "", std::string_view table = "t") {
  std::string r;
  put_bytes(r, "mysql-backfill-fulldump");
  if (at == extra_at::top_level) r += extra;
  put_bytes(r, "db");
  put_bytes(r, table);
  put_long(r, 1);
  put_bytes(r, "id");
  put_long(r, 0);
  if (at == extra_at::sort_keys) r += extra;
  put_long(r, id);
  put_bytes(r, name);
  if (at == extra_at::payload) r += extra;
  return r;
}

// The first finding of issue 25: a container of about `bytes` whose one event holds an array
// of nulls, at `at`, that each block claims again.
inline std::string null_items_container(size_t bytes, extra_at at = extra_at::payload) {
  const std::string items = zero_byte_items(bytes);
  return container(event_schema(at, R"({"type":"array","items":"null"})"),
                   {{1, event_record(1, "a", at, items)}});
}

// Valid events (ids from first_id), each with a name of name_bytes, into whole records.
inline std::string event_records(int64_t first_id, size_t count, size_t name_bytes,
                                 std::string_view table = "t") {
  std::string out;
  std::string name;
  for (size_t i = 0; i < count; ++i) {
    const int64_t id = first_id + static_cast<int64_t>(i);
    // Names that differ row to row but compress: a counter and a repeated phrase.
    name = "row " + std::to_string(id) + " ";
    while (name.size() < name_bytes)
      name += "of a compressible event ";
    name.resize(name_bytes);
    out += event_record(id, name, extra_at::none, "", table);
  }
  return out;
}

// The second finding of issue 25: `blocks` deflate blocks, each inflating to about
// block_bytes of one valid event repeated (~1000:1), in one container.
inline std::string deflate_blocks_container(size_t blocks, size_t block_bytes) {
  const std::string one = event_records(1, 1, 100);
  const size_t per_block = block_bytes / one.size();
  std::string records;
  records.reserve(per_block * one.size());
  for (size_t i = 0; i < per_block; ++i)
    records += one;
  const std::string data = raw_deflate(records, Z_BEST_COMPRESSION);
  std::vector<std::pair<int64_t, std::string>> framed(blocks,
                                                      {static_cast<int64_t>(per_block), data});
  return container(event_schema(), framed, "deflate");
}

// A container of about `wire_bytes` (on the wire) of valid, distinct events (ids from 1) in
// deflate blocks of 1 MiB each once inflated: names are half hex noise, half a repeated
// phrase, so that it compresses ~3:1, as real rows do. rows gets how many it holds.
inline std::string compressible_container(size_t wire_bytes, size_t& rows) {
  std::vector<std::pair<int64_t, std::string>> blocks;
  size_t total = 0;
  int64_t id = 1;
  uint64_t noise = 0x9e3779b97f4a7c15;
  while (total < wire_bytes) {
    std::string records;
    int64_t count = 0;
    while (records.size() < (1 << 20)) {
      std::string name;
      for (int i = 0; i < 6; ++i) {  // xorshift: reproducible noise
        noise ^= noise << 13;
        noise ^= noise >> 7;
        noise ^= noise << 17;
        static const char hex[] = "0123456789abcdef";
        for (int k = 0; k < 8; ++k)
          name.push_back(hex[(noise >> (4 * k)) & 15]);
      }
      name += " of row " + std::to_string(id) + " of a compressible event";
      records += event_record(id++, name);
      ++count;
    }
    blocks.emplace_back(count, raw_deflate(records));
    total += blocks.back().second.size();
  }
  rows = static_cast<size_t>(id - 1);
  return container(event_schema(), blocks, "deflate");
}

// A Debezium change event as AvroConverter writes it (PostgreSQL source) whose row is the
// record `row` (named Value): what an attacker's registered schema may say.
inline std::string debezium_envelope_schema(std::string_view row) {
  return R"({"type":"record","name":"Envelope","namespace":"dbserver1.public.t","fields":[)"
         R"({"name":"before","type":["null",)" +
         std::string(row) +
         R"(],"default":null},{"name":"after","type":["null","Value"],"default":null},)"
         R"({"name":"source","type":{"type":"record","name":"Source","fields":[)"
         R"({"name":"connector","type":"string"},{"name":"ts_ms","type":"long"},)"
         R"({"name":"db","type":"string"},{"name":"schema","type":"string"},)"
         R"({"name":"table","type":"string"},{"name":"lsn","type":["null","long"]}]}},)"
         R"({"name":"op","type":"string"}]})";
}

// The same whose row is {id, nulls} with `nulls` of type `extra`.
inline std::string debezium_value_schema(std::string_view extra) {
  return debezium_envelope_schema(
      R"({"type":"record","name":"Value","fields":[{"name":"id","type":"int"},)"
      R"({"name":"nulls","type":)" +
      std::string(extra) + "}]}");
}

// Its key: {id, nulls}.
inline std::string debezium_key_schema(std::string_view extra) {
  return R"({"type":"record","name":"Key","namespace":"dbserver1.public.t","fields":[)"
         R"({"name":"id","type":"int"},{"name":"nulls","type":)" +
         std::string(extra) + "}]}";
}

// A body of debezium_envelope_schema: op c of table `table`, its row's bytes as given.
inline std::string debezium_row_body(std::string_view row, std::string_view table = "t") {
  std::string b;
  put_long(b, 0);  // before: null
  put_long(b, 1);  // after: Value
  b += row;
  put_bytes(b, "postgresql");
  put_long(b, 1'700'000'000'000);
  put_bytes(b, "db");
  put_bytes(b, "public");
  put_bytes(b, table);
  put_long(b, 1);  // lsn: long
  put_long(b, 1000);
  put_bytes(b, "c");
  return b;
}

// A body of debezium_value_schema: row {id, nulls as given}.
inline std::string debezium_body(int32_t id, std::string_view nulls, std::string_view table = "t") {
  std::string row;
  put_long(row, id);
  row += nulls;
  return debezium_row_body(row, table);
}

// The Confluent wire format: magic byte 0, the schema id big-endian, the Avro binary body.
inline std::string confluent_framed(int32_t id, std::string_view body) {
  const auto u = static_cast<uint32_t>(id);
  std::string out{'\0', static_cast<char>(u >> 24), static_cast<char>(u >> 16),
                  static_cast<char>(u >> 8), static_cast<char>(u)};
  out.append(body);
  return out;
}

}  // namespace sluice::avro_build
