#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "core/model/change.h"
#include "core/model/csn.h"
#include "core/model/result.h"
#include "schemas/common/source_zone.h"
#include "schemas/common/timestamp_parser.h"
#include "schemas/datastream/datastream_event.h"

namespace sluice {

// The database a Datastream stream reads from: it decides which fields order the events.
enum class datastream_source : uint8_t {
  mysql,
  oracle,
  postgresql,
  sqlserver,
  spanner,
  salesforce,
  mongodb,
  other,  // ordered by sort_keys
};

const char* to_string(datastream_source source);

// Backfill when read_method contains "backfill" or ends in "-fulldump" or "-incremental"
// ("backfill", "mysql-backfill-fulldump", "oracle-backfill"…); CDC otherwise.
read_method classify_read_method(std::string_view method);

// The source from read_method's prefix ("mysql-", "oracle-", "postgres…", "sqlserver-",
// "spanner-", "salesforce-", "mongodb-"); for the generic "cdc"/"backfill", from the
// source_metadata fields present (collection, object_name, Spanner's commit_timestamp…,
// scn/rs_id, binlog or log positions, replication_index, an LSN with '/' or ':').
datastream_source detect_source(const datastream_event& event, std::string_view method);

// Builds the CSN of a Datastream event (SPEC §2, §3). Part 0 is the read class; positions
// sent as strings are read as the numbers they are:
//   backfill     [0, source_ts_ns]  ([0] without a source timestamp; positions ignored)
//   mysql        [1, log file sequence, log_position]
//                (binlog_file/binlog_position for GTID streams; "mysql-bin.000010" -> 10)
//   oracle       [1, scn, rs_id (trimmed lower-case hex text, "" if absent), ssn (0 if absent)]
//   postgresql   [1, source_ts_ns, lsn as hi<<32|lo]
//   sqlserver    [1, source_ts_ns, lsn (trimmed lower-case hex text)]
//   spanner      [1, commit_ts_ns, record_sequence, mod_index|mod_number (0 if absent)]
//   salesforce   [1, source_ts_ns]
//   mongodb      [1, ts|clusterTime: t, i]  (a number, or an object holding t and i)
//   other        [1, sort_keys parts…]  ([1, source_ts_ns] without sort_keys)
// `uuid` and `read_timestamp` never take part. A CDC event without the fields its source
// needs is a bad_csn error.
//
// Lifecycle: one per decoder (it reuses a csn_builder). Threading: as its decoder.
class datastream_ordering {
 public:
  explicit datastream_ordering(source_zone zone) : _zone(std::move(zone)) {}

  result<csn> sequence(const datastream_event& event, datastream_source source, read_method method,
                       std::optional<timestamp_ns> source_ts);

 private:
  std::optional<error> add_mysql(const datastream_event& event);
  std::optional<error> add_oracle(const datastream_event& event);
  std::optional<error> add_lsn_source(const datastream_event& event, datastream_source source,
                                      std::optional<timestamp_ns> source_ts);
  std::optional<error> add_spanner(const datastream_event& event,
                                   std::optional<timestamp_ns> source_ts);
  std::optional<error> add_mongodb(const datastream_event& event);
  std::optional<error> add_sort_keys(const datastream_event& event,
                                     std::optional<timestamp_ns> source_ts);
  void add_part(const json_token& token);

  source_zone _zone;
  csn_builder _builder;
};

}  // namespace sluice
