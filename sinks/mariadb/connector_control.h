#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "sinks/connector_control.h"
#include "sinks/keep_going.h"
#include "sinks/mariadb/session/mdb_session.h"
#include "sinks/mariadb/state/control_store.h"

namespace sluice::mdb {

// The control role on MariaDB (sinks/connector_control.h): every call one short transaction,
// retried through outages until `go` says stop. Lifecycle: made by mdb_target_session.
class connector_control final : public sink::connector_control {
 public:
  connector_control(mdb_session& session, std::string connector, keep_going go)
      : _session(session), _store(session.schema(), std::move(connector)), _go(std::move(go)) {}

  std::optional<sink::control_view> heartbeat(const sink::member_heartbeat& me,
                                              std::chrono::seconds forget_after) override;
  bool set_target(sink::target_state s, const std::string& by) override;
  std::optional<int64_t> request_restart(bool only_failed) override;
  std::optional<bool> request_member_restart(const std::string& worker_id) override;
  void leave(const std::string& worker_id) override;

 private:
  // f(conn) in one transaction, retried as the session's policy says; nothing once go() stops.
  template <typename F>
  auto in_transaction(F&& f);

  mdb_session& _session;
  control_store _store;
  keep_going _go;
};

}  // namespace sluice::mdb
