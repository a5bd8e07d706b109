#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "connector/base/connector_state.h"
#include "core/model/named_type.h"

namespace sluice {

// One assigned partition as GET /status shows it.
struct partition_status {
  std::string topic;
  partition_id partition{0};
  std::optional<kafka_offset> committed;       // next offset stored in PostgreSQL; none: no row
  std::optional<kafka_offset> high_watermark;  // none: not fetched yet

  // high watermark − committed (the sluice_consumer_lag_messages value); none when either
  // is unknown.
  std::optional<int64_t> lag() const {
    if (!committed || !high_watermark) return std::nullopt;
    const int64_t l = high_watermark->value() - committed->value();
    return l > 0 ? l : 0;
  }
};

// A target table whose auto-create / auto-evolve fails, as GET /status shows it.
struct failed_table_status {
  std::string table;  // target "schema.table"
  std::string error;  // the latest PostgreSQL error
  int64_t since_ms = 0;
  int64_t last_ms = 0;
  uint64_t dead_lettered = 0;  // rows sent to the dead letters since
};

// A live member of the connector (a `sluice run` of the same name), as its heartbeat says.
struct member_status {
  std::string worker_id;
  std::string state;  // its connector_state's name (RUNNING, DEGRADED, …)
  std::string trace;  // why FAILED or DEGRADED
};

// What the connector says about itself, at one instant.
struct connector_status {
  std::string name;  // the connector name (config `name`)
  connector_state state = connector_state::starting;
  std::string last_error;                          // empty: none (in FAILED: why)
  std::string degraded_reason;                     // while DEGRADED: what is unreachable, and why
  int64_t degraded_since_ms = 0;                   // since when (ms since the epoch, UTC)
  std::vector<partition_status> assigned;          // partitions this process owns
  std::vector<failed_table_status> failed_tables;  // whose DDL fails (ddl.failure: dead_letter)
  std::vector<member_status> members;  // every live member, this one included; empty: unknown
};

// Where the HTTP server reads the connector's state, so that it does not depend on the
// pipeline. Threading: both methods are called on the HTTP server's threads, concurrently
// with the pipeline and with each other: implementations must be thread-safe (copy under a
// mutex, atomics) and quick (no I/O, no waiting for a batch).
class status_source {
 public:
  virtual ~status_source() = default;
  virtual connector_status status() const = 0;
  // For GET /healthz, /readyz and the pause/resume guard; override when status() is costly.
  virtual connector_state state() const { return status().state; }
};

}  // namespace sluice
