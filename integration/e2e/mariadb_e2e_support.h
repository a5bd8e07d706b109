#pragma once

// What the MariaDB end-to-end scenarios share (mariadb_*_e2e_test.cc, one program e2e_mariadb):
// reading the replica back as text and building the messages every format's scenario uses.

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/base64.h"
#include "core/model/json_text.h"
#include "integration/support/datastream_events.h"
#include "integration/support/mariadb_replica.h"
#include "integration/support/services.h"

namespace sluice::testing {

// id → the other columns as text ("<null>" for NULL), from a query whose first column is id.
inline std::map<std::string, std::vector<std::string>> rows_of(const std::string& sql) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& r : mariadb_query(sql)) {
    std::vector<std::string> rest;
    for (size_t i = 1; i < r.size(); ++i)
      rest.push_back(r[i].value_or("<null>"));
    out[r[0].value_or("<null>")] = rest;
  }
  return out;
}

// Every message once in the order given, then once more in reverse: each is delivered twice,
// and every pair of messages arrives in both orders.
inline std::vector<kafka_record> twice_reordered(std::vector<kafka_record> records) {
  const std::vector<kafka_record> back(records.rbegin(), records.rend());
  records.insert(records.end(), back.begin(), back.end());
  return records;
}

// One line per entry, so that a failed comparison shows both sides whole.
inline std::string lines(const std::map<std::string, std::string>& m) {
  std::string out;
  for (const auto& [k, v] : m)
    out += k + " " + v + "\n";
  return out;
}

// The one cell of a query, "<null>" for NULL.
inline std::string cell(const std::string& sql) {
  const auto rows = mariadb_query(sql);
  REQUIRE_MESSAGE(rows.size() == 1, sql);
  return rows.at(0).at(0).value_or("<null>");
}

inline kafka_record datastream(const std::string& table, const std::string& op, uint64_t lsn,
                               const std::string& payload) {
  datastream_event e;
  e.table = table;
  e.change_type = op;
  e.lsn = lsn;
  e.payload_json = payload;
  return {std::nullopt, e.json(), 0};
}

// An unscaled decimal as Avro's decimal bytes: big-endian two's complement, shortest.
inline std::string decimal_bytes(int64_t unscaled) {
  std::string bytes;
  for (;;) {
    bytes.insert(bytes.begin(), static_cast<char>(unscaled & 0xff));
    const int64_t rest = unscaled >> 8;
    const bool sign = (bytes.front() & 0x80) != 0;
    if ((rest == 0 && !sign) || (rest == -1 && sign)) return bytes;
    unscaled = rest;
  }
}

// The row's Connect schema: code (the key, a string), amount Decimal(10,2), day Date, at
// ZonedTimestamp, meta Json, n int32.
inline constexpr const char* dbz_row_fields =
    R"([{"type":"string","optional":false,"field":"code"},)"
    R"({"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal",)"
    R"("version":1,"parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"amount"},)"
    R"({"type":"int32","optional":true,"name":"io.debezium.time.Date","version":1,"field":"day"},)"
    R"({"type":"string","optional":true,"name":"io.debezium.time.ZonedTimestamp","version":1,)"
    R"("field":"at"},)"
    R"({"type":"string","optional":true,"name":"io.debezium.data.Json","version":1,)"
    R"("field":"meta"},)"
    R"({"type":"int32","optional":true,"field":"n"}])";

inline std::string dbz_envelope_schema(const std::string& table) {
  const std::string row = R"({"type":"struct","fields":)" + std::string(dbz_row_fields) +
                          R"(,"optional":true,"name":"pg.public.)" + table + R"(.Value","field":)";
  return R"({"type":"struct","fields":[)" + row + R"("before"},)" + row + R"("after"},)" +
         R"({"type":"struct","fields":[{"type":"string","optional":false,"field":"version"},)"
         R"({"type":"string","optional":false,"field":"connector"},)"
         R"({"type":"string","optional":false,"field":"name"},)"
         R"({"type":"int64","optional":false,"field":"ts_ms"},)"
         R"({"type":"string","optional":true,"field":"snapshot"},)"
         R"({"type":"string","optional":false,"field":"db"},)"
         R"({"type":"string","optional":true,"field":"sequence"},)"
         R"({"type":"string","optional":false,"field":"schema"},)"
         R"({"type":"string","optional":false,"field":"table"},)"
         R"({"type":"int64","optional":true,"field":"txId"},)"
         R"({"type":"int64","optional":true,"field":"lsn"},)"
         R"({"type":"int64","optional":true,"field":"xmin"}],"optional":false,)"
         R"("name":"io.debezium.connector.postgresql.Source","field":"source"},)"
         R"({"type":"string","optional":false,"field":"op"},)"
         R"({"type":"int64","optional":true,"field":"ts_ms"}],"optional":false,"name":"pg.public.)" +
         table + R"(.Envelope"})";
}

// A row image: amount as Connect's Decimal (base64 of the unscaled value's bytes).
inline std::string dbz_row(const std::string& code, int64_t cents, int32_t day,
                           const std::string& at, const std::string& meta, int n) {
  std::string quoted_meta;
  append_json_string(quoted_meta, meta);
  return R"({"code":")" + code + R"(","amount":")" + encode_base64(decimal_bytes(cents)) +
         R"(","day":)" + std::to_string(day) + R"(,"at":")" + at + R"(","meta":)" + quoted_meta +
         R"(,"n":)" + std::to_string(n) + "}";
}

inline kafka_record dbz_json(const std::string& table, const std::string& code,
                             const std::string& op, const std::string& before,
                             const std::string& after, int64_t lsn) {
  const std::string key = R"({"schema":{"type":"struct","fields":[{"type":"string",)"
                          R"("optional":false,"field":"code"}],"optional":false,)"
                          R"("name":"pg.public.)" +
                          table + R"(.Key"},"payload":{"code":")" + code + R"("}})";
  const std::string l = std::to_string(lsn);
  const std::string value =
      R"({"schema":)" + dbz_envelope_schema(table) + R"(,"payload":{"before":)" + before +
      R"(,"after":)" + after +
      R"(,"source":{"version":"2.5.0.Final","connector":"postgresql","name":"pg",)"
      R"("ts_ms":1705318200123,"snapshot":"false","db":"shop","sequence":"[\")" +
      l + R"(\",\")" + l + R"(\"]","schema":"public","table":")" + table +
      R"(","txId":555,"lsn":)" + l + R"(,"xmin":null},"op":")" + op +
      R"(","ts_ms":1705318200456}})";
  return {key, value, 0};
}

}  // namespace sluice::testing
