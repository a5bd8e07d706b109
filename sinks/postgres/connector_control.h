#pragma once

#include <string>

#include "sinks/connector_control.h"
#include "sinks/keep_going.h"
#include "sinks/postgres/session/pg_session.h"
#include "sinks/postgres/state/control_store.h"

namespace sluice {

// The control role (sinks/connector_control.h) on a PostgreSQL session: each call one short
// transaction of state/control_store.h's statements, retried as the session's policy says.
//
// Lifecycle: one per member agent, on its session. Threading: the session's thread.
class pg_connector_control final : public sink::connector_control {
 public:
  pg_connector_control(pg_session& session, std::string connector, keep_going go)
      : _session(session), _store(session.schema(), std::move(connector)), _go(std::move(go)) {}

  std::optional<sink::control_view> heartbeat(const sink::member_heartbeat& me,
                                              std::chrono::seconds forget_after) override;
  bool set_target(sink::target_state s, const std::string& by) override;
  std::optional<int64_t> request_restart(bool only_failed) override;
  std::optional<bool> request_member_restart(const std::string& worker_id) override;
  void leave(const std::string& worker_id) override;

 private:
  pg_session& _session;
  control_store _store;
  keep_going _go;
};

}  // namespace sluice
