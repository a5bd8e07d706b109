#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "integration/support/services.h"

namespace sluice::testing {

// Datastream events of the PostgreSQL-source flavour (SPEC §3, seeds 000/002) for tests:
// `lsn` is the change's position; `payload_json` is the payload object's members, e.g.
// R"("id": 1, "name": "a")".
struct datastream_event {
  std::string schema = "public";
  std::string table;
  std::string change_type = "INSERT";  // INSERT | UPDATE | DELETE
  uint64_t lsn = 0;
  std::string payload_json;
  std::string primary_key = "id";   // "": a keyless table
  int64_t source_timestamp_ms = 0;  // 0: 2026-01-01T00:00:00Z + lsn milliseconds

  std::string json() const;
};

// One event of schema.table keyed by id: payload {"id": id<more>} at `lsn` (more: further
// members, each with its leading comma).
kafka_record datastream_record(const std::string& schema, const std::string& table, int id,
                               uint64_t lsn, const std::string& more = "");

// Inserts of rows id = first_id… (count of them) into `table`, each {"id": id, "v": id} at
// LSN 100 + id, keyed by id.
std::vector<kafka_record> datastream_rows(const std::string& table, int first_id, int count);

// "hi/lo" as PostgreSQL prints an LSN.
std::string format_lsn(uint64_t lsn);

}  // namespace sluice::testing
