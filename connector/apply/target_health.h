#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "connector/base/connector_state.h"
#include "connector/metrics/apply_probe.h"
#include "connector/metrics/target_probe.h"
#include "sinks/session_observer.h"
#include "sinks/target_factory.h"

namespace sluice {

// What the connector's target sessions (lanes, partition owner, janitor, key lookups) say
// about the server, made one state (SPEC §5 DEGRADED):
//
//   a session loses the target    → DEGRADED (while RUNNING), sluice_target_up 0, one log line
//   every such session is back    → RUNNING,  sluice_target_up 1, one log line with the
//                                   outage's length
//   a session's statement stalls  → DEGRADED ("<target> statements": the role and the error,
//     on a transient error past      a lock held elsewhere named by the DDL), one log line;
//     errors.retry.max               RUNNING again once every stalled session got through
//   reconnections, errors         → sluice_target_reconnects_total, sluice_target_errors_total
//                                   (and the sluice_postgres_* series on PostgreSQL)
//
// The target is named as base/target_names.h names it: the dependencies are "postgres" and
// "postgres statements" (or "mariadb", "mariadb statements"), the reasons and log lines say
// "PostgreSQL unreachable (lane-0): …" (or "MariaDB …"), the log component is the id.
//
// Lifecycle: built before the sessions it observes, destroyed after them. Threading: every
// method is called from the sessions' threads, concurrently: one mutex.
class target_health : public session_observer {
 public:
  target_health(state_holder& state, target_probe& probe, apply_probe& errors,
                target_kind target = target_kind::postgres);

  void error(const target_error_class& error) override;
  void unreachable(const std::string& role, const target_error_class& why) override;
  void reachable(const std::string& role) override;
  void withdrawn(const std::string& role) override;
  void reconnected(const std::string& role) override;
  void stalled(const std::string& role, const target_error_class& why) override;
  void stall_ended(const std::string& role) override;

  // Whether some session is waiting out an outage now.
  bool down() const;
  // Whether some session retries a statement past errors.retry.max now.
  bool stalled() const;

 private:
  state_holder& _state;
  target_probe& _probe;
  apply_probe& _errors;
  const std::string _id;          // "postgres": the dependency, the log component
  const std::string _statements;  // "postgres statements": the stalls' dependency
  const std::string _name;        // "PostgreSQL": in sentences
  mutable std::mutex _mutex;
  std::map<std::string, std::string> _down;  // role → why
  std::chrono::steady_clock::time_point _since{};
  std::map<std::string, std::string> _stalled;  // role → why

  void publish_stalls();  // under _mutex

  void forget(const std::string& role, const std::string& what);  // under _mutex
};

}  // namespace sluice
