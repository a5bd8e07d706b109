#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::sink {

// What the operator asked the connector to be, for every member at once (Kafka Connect's
// target state, kept in its config topic; sluice keeps it in the sink's state).
enum class target_state { running, paused, stopped };

const char* to_string(target_state s);  // "RUNNING", "PAUSED", "STOPPED"
std::optional<target_state> parse_target_state(std::string_view s);

// What a member says about itself in its heartbeat.
struct member_heartbeat {
  std::string worker_id;            // host:pid
  std::string state;                // its connector_state's name ("RUNNING", "DEGRADED")
  std::string trace;                // why FAILED or DEGRADED (secrets redacted); "" otherwise
  std::vector<std::string> topics;  // the topics of the partitions it is assigned
};

// A member as the heartbeat table holds it.
struct member_record {
  member_heartbeat heartbeat;
  int64_t age_ms = 0;         // since its last heartbeat, by the target's clock
  int64_t restart_epoch = 0;  // bumped to ask that member alone to restart
};

// The connector's shared control state, as one heartbeat read it.
struct control_view {
  target_state target = target_state::running;  // no row yet: RUNNING
  int64_t restart_epoch = 0;                    // bumped to ask every member to restart
  bool restart_only_failed = false;             // …only those FAILED, for the latest request
  std::vector<member_record> members;           // every row, by worker_id
};

// The control role, target-neutral: the target state, the restart requests and the members'
// heartbeats of one connector, which every member reads within seconds (connector/control/).
// Every call is one short transaction, retried through outages as the session's policy says
// until `go` (given at construction) says stop: then nothing. PostgreSQL's:
// postgres/connector_control.h.
//
// Lifecycle: made by a target_session, lives no longer than it. Threading: the session's.
class connector_control {
 public:
  virtual ~connector_control() = default;

  // Writes `me`'s heartbeat, forgets members silent for longer than `forget_after`, and reads
  // the control state and every member, in one transaction.
  virtual std::optional<control_view> heartbeat(const member_heartbeat& me,
                                                std::chrono::seconds forget_after) = 0;
  virtual bool set_target(target_state s, const std::string& by) = 0;
  // Asks every member (only_failed: every FAILED one) to restart; the new epoch.
  virtual std::optional<int64_t> request_restart(bool only_failed) = 0;
  // Asks one member to restart; false when there is no such member.
  virtual std::optional<bool> request_member_restart(const std::string& worker_id) = 0;
  // A member that stops for good takes its heartbeat away.
  virtual void leave(const std::string& worker_id) = 0;
};

}  // namespace sluice::sink
