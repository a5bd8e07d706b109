#pragma once

#include <cstdint>
#include <optional>

#include "core/model/change.h"
#include "core/model/csn.h"
#include "core/model/result.h"
#include "schemas/debezium/debezium_envelope.h"

namespace sluice {

// The database a Debezium connector reads: it decides which source fields order the events.
enum class debezium_source : uint8_t { postgresql, mysql, sqlserver, oracle, other };

const char* to_string(debezium_source source);

// From source.connector ("postgresql", "mysql", "mariadb", "sqlserver", "oracle"), else from
// the position fields present (lsn; file + pos; change_lsn / commit_lsn; scn).
debezium_source detect_source(const debezium_envelope& e);

// When the source committed the change: source.ts_ns, else ts_us, else ts_ms (nothing
// when none is there). An error when the field is not an integer or out of range.
result<std::optional<timestamp_ns>> debezium_source_timestamp(const debezium_envelope& e);

// Builds the CSN of a Debezium event (SPEC §2, §3). Part 0 is the read class: snapshot
// events (op "r") order below every streamed event of the row, among themselves by time.
// Positions sent as strings are read as what they are:
//   snapshot     [0, source_ts_ns]            ([0] without a source timestamp)
//   postgresql   [1, lsn, sequence parts…]    lsn a number (or "16/B374D848" text);
//                sequence is a string holding a JSON array of numeric strings
//                ("[\"24023119\",\"24023128\"]"), each part a number, null as INT64_MIN
//   mysql        [1, file sequence, pos, row] ("mysql-bin.000010" -> 10; row 0 if absent)
//   sqlserver    [1, commit_lsn, change_lsn, event_serial_no]
//                LSNs as trimmed lower-case fixed-width hex text ("" when null), serial 0
//                when absent
//   oracle       [1, scn, rs_id text ("" if absent), ssn (0 if absent)]
//   other        [1, source_ts_ns]
// A streamed event without the fields its source needs is a bad_csn error.
//
// Lifecycle: one per decoder (it reuses a csn_builder). Threading: as its decoder.
class debezium_ordering {
 public:
  result<csn> sequence(const debezium_envelope& e, read_method method,
                       std::optional<timestamp_ns> source_ts);

 private:
  std::optional<error> add_postgresql(const debezium_envelope& e);
  std::optional<error> add_mysql(const debezium_envelope& e);
  std::optional<error> add_sqlserver(const debezium_envelope& e);
  std::optional<error> add_oracle(const debezium_envelope& e);

  csn_builder _builder;
};

}  // namespace sluice
