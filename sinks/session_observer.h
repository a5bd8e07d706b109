#pragma once

#include <string>

#include "sinks/target_error.h"

namespace sluice {

// What a target's sessions report about it (PostgreSQL's: postgres/session/pg_session.h), for the
// runtime's health (DEGRADED, /readyz) and metrics (sluice_postgres_up,
// sluice_postgres_reconnects_total, sluice_postgres_errors_total). One observer serves every
// session of a process: implementations are thread-safe, quick, and never call back into a session.
class session_observer {
 public:
  virtual ~session_observer() = default;
  // Every failure a session classified, retried or not.
  virtual void error(const target_error_class& /*error*/) {}
  // A session lost PostgreSQL (unreachable, connection lost, server restarting): once per
  // outage, when its first attempt fails.
  virtual void unreachable(const std::string& /*role*/, const target_error_class& /*why*/) {}
  // The session's next attempt after an outage succeeded.
  virtual void reachable(const std::string& /*role*/) {}
  // The session stopped waiting out an outage without knowing its end (its user abandoned the
  // work): it reports nothing more until its next attempt.
  virtual void withdrawn(const std::string& /*role*/) {}
  // A session's statement kept failing with a transient error (a lock or statement timeout,
  // the server out of disk or memory) past the policy's quiet attempts: it retries on, at the
  // backoff's pace. Told again with each new reason; ended by stall_ended().
  virtual void stalled(const std::string& /*role*/, const target_error_class& /*why*/) {}
  // A stalled session's attempt succeeded, or its user abandoned the work.
  virtual void stall_ended(const std::string& /*role*/) {}
  // A new connection replaced one that was lost.
  virtual void reconnected(const std::string& /*role*/) {}
};

}  // namespace sluice
