#pragma once

#include <doctest/doctest.h>

#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "connector/config/config_loader.h"
#include "connector/prepare/preparer.h"

// What the prepare-stage tests share: Datastream events, a config around the rules under test,
// messages as consumed, and a preparer over them.

namespace sluice::test {

// A Datastream event of public.<table>: an upsert of id (or, deleted, its removal) at `lsn`,
// with `columns` (JSON members) beside id.
inline std::string event(int id, int lsn, const std::string& columns, bool deleted = false,
                         const std::string& table = "orders") {
  const std::string l = "0/" + std::to_string(lsn);
  return R"({"uuid":"u)" + std::to_string(lsn) +
         R"(","read_timestamp":"2026-01-01T00:00:01.000Z","source_timestamp":1767225600000,)"
         R"("object":"public_)" +
         table +
         R"(","read_method":"postgresql-cdc","stream_name":"s",)"
         R"("schema_key":"k","sort_keys":[1767225600000,")" +
         l + R"("],"source_metadata":{"schema":"public","table":")" + table + R"(","is_deleted":)" +
         (deleted ? "true" : "false") + R"(,"change_type":")" + (deleted ? "DELETE" : "UPDATE") +
         R"(","primary_keys":["id"],"lsn":")" + l + R"(","tx_id":1},"payload":{"id":)" +
         std::to_string(id) + columns + "}}";
}

inline config load(const std::string& extra) {
  load_result r = load_config(R"yaml(name: transforms-test
kafka:
  bootstrap.servers: 127.0.0.1:9092
topics: [dbserver1.public.orders, other]
postgres:
  dsn: postgresql://sluice@127.0.0.1:5432/replica
format: datastream
errors.tolerance: all
)yaml" + extra,
                              [](std::string_view) { return std::optional<std::string>(); });
  REQUIRE_MESSAGE(r.ok(), r.error_text());
  return r.value();
}

inline std::string load_error(const std::string& extra) {
  load_result r = load_config(
      "name: t\nkafka: {bootstrap.servers: 127.0.0.1:9092}\ntopics: [a]\n"
      "postgres: {dsn: postgresql://x@127.0.0.1/r}\n" +
          extra,
      [](std::string_view) { return std::optional<std::string>(); });
  return r.ok() ? std::string() : r.error_text();
}

// A message as consumed; its value is a view: the texts stay alive for the test binary's run.
inline source_message message(std::string value, int64_t offset,
                              const char* topic = "dbserver1.public.orders") {
  static std::deque<std::string> values;
  values.push_back(std::move(value));
  source_message m;
  m.raw.topic = topic;
  m.raw.partition = partition_id{3};
  m.raw.offset = kafka_offset{offset};
  m.raw.value = values.back();
  m.timestamp_ms = 1767225600123;
  return m;
}

struct stage {
  explicit stage(const std::string& extra)
      : cfg(load(extra)), decoders(cfg), prepare(cfg, decoders, 1) {}
  config cfg;
  topic_decoders decoders;
  preparer prepare;
};

inline const merged_column* column(const merged_row& r, const std::string& name) {
  for (const merged_column& c : r.columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace sluice::test
