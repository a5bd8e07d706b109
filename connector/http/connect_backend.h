#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sinks/connector_control.h"

namespace sluice {

// One task of the connector as Kafka Connect's REST API shows it: in sluice, one live member
// (a `sluice run` process of the connector), in worker_id order.
struct connect_task {
  int id = 0;
  std::string state;  // Connect's: RUNNING, PAUSED, FAILED, UNASSIGNED, RESTARTING
  std::string worker_id;
  std::string trace;  // FAILED: why; RUNNING while DEGRADED: what is being waited out
};

// Everything the GET endpoints answer from, read at one instant.
struct connect_view {
  std::string name;
  std::string state;  // the connector's: RUNNING, PAUSED, STOPPED, FAILED, UNASSIGNED
  std::string trace;
  std::string worker_id;  // the member answering
  std::vector<connect_task> tasks;
  std::vector<std::pair<std::string, std::string>> config;  // flat, secrets redacted
  std::vector<std::string> topics;                          // assigned to some member, sorted
  std::string version;
  std::string commit;
  std::string kafka_cluster_id;
};

// A sink connector's offset, KIP-875's shape; no offset: clear it (PATCH with "offset": null).
struct connect_offset {
  std::string topic;
  int32_t partition = 0;
  std::optional<int64_t> offset;
};

// An answer that is an HTTP status and a message: an error (Connect's error body) or, for a
// 2xx, the `{"message": …}` body.
struct connect_answer {
  int status = 200;
  std::string message;
};

// What Kafka Connect's REST API (connect_api.h) asks of the connector. Implemented by the
// supervisor (connector/control/). Threading: called on the HTTP server's threads,
// concurrently: implementations are thread-safe; view() and the state writes are quick (no
// I/O: the writes reach every member through the control state, asynchronously); the offsets
// calls do I/O, bounded.
class connect_backend {
 public:
  virtual ~connect_backend() = default;

  virtual connect_view view() const = 0;
  virtual void set_target(sink::target_state s) = 0;
  // Every member, or every FAILED one; this one at once when it is concerned.
  virtual void restart(bool only_failed) = 0;
  // One task (member); false when there is no such task.
  virtual bool restart_task(int id) = 0;
  // The committed offsets, or an error answer.
  virtual std::pair<std::vector<connect_offset>, connect_answer> offsets() = 0;
  // PATCH: moves or clears the given partitions; refused (400) unless STOPPED.
  virtual connect_answer alter_offsets(const std::vector<connect_offset>& offsets) = 0;
  // DELETE: clears every partition; refused (400) unless STOPPED.
  virtual connect_answer reset_offsets() = 0;
};

}  // namespace sluice
