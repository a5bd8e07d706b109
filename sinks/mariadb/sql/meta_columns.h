#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sluice::mdb::meta {

// Metadata columns of replica tables on MariaDB: the same names as PostgreSQL's (a contract:
// SPEC §4, postgres/sql/write_sql.h), typed by plan/table_ddl.h.
inline constexpr const char* csn = "_sluice_csn";
inline constexpr const char* col_csn = "_sluice_col_csn";
inline constexpr const char* updated_at = "_sluice_updated_at";
inline constexpr const char* deleted = "_sluice_deleted";
inline constexpr const char* op = "_sluice_op";
inline constexpr const char* source_ts = "_sluice_source_ts";
inline constexpr const char* tx = "_sluice_tx";
inline constexpr const char* kafka_topic = "_sluice_kafka_topic";
inline constexpr const char* kafka_partition = "_sluice_kafka_partition";
inline constexpr const char* kafka_offset = "_sluice_kafka_offset";
inline constexpr const char* kafka_index = "_sluice_kafka_index";

// One of the above: sluice's bookkeeping, which it adds to any table it writes (an adopted one
// too, whatever auto.evolve says), as opposed to the stream's columns.
inline bool is_own(std::string_view name) {
  for (const char* m : {csn, col_csn, updated_at, deleted, op, source_ts, tx, kafka_topic,
                        kafka_partition, kafka_offset, kafka_index}) {
    if (name == m) return true;
  }
  return false;
}

// An appended row's source position, sorted by name: the columns of the unique index an append
// writes each position once by (`_sluice_position`).
inline std::vector<std::string> position_columns() {
  return {kafka_index, kafka_offset, kafka_partition, kafka_topic};
}
inline constexpr const char* position_index = "_sluice_position";

}  // namespace sluice::mdb::meta
