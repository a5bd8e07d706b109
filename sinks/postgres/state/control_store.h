#pragma once

#include <chrono>
#include <string>

#include <pqxx/transaction_base>

#include "sinks/connector_control.h"
#include "sinks/postgres/session/state_schema.h"

namespace sluice {

// <schema>.connector_control and <schema>.members, keyed by connector name: the target state,
// the restart requests and the heartbeats (sinks/connector_control.h). Works inside the
// caller's transaction; holds no connection. Threading: none of its own.
class control_store {
 public:
  control_store(const state_schema& schema, std::string connector);

  // Upserts `me`'s row (heartbeat_at = now()), deletes rows silent for `forget_after`.
  void beat(pqxx::transaction_base& tx, const sink::member_heartbeat& me,
            std::chrono::seconds forget_after) const;
  sink::control_view read(pqxx::transaction_base& tx) const;
  void set_target(pqxx::transaction_base& tx, sink::target_state s, const std::string& by) const;
  int64_t request_restart(pqxx::transaction_base& tx, bool only_failed) const;
  bool request_member_restart(pqxx::transaction_base& tx, const std::string& worker_id) const;
  void leave(pqxx::transaction_base& tx, const std::string& worker_id) const;

 private:
  std::string _control;
  std::string _members;
  std::string _connector;
};

}  // namespace sluice
