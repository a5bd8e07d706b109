#include "sinks/postgres/connector_control.h"

#include <pqxx/transaction>

namespace sluice {

std::optional<sink::control_view> pg_connector_control::heartbeat(
    const sink::member_heartbeat& me, std::chrono::seconds forget_after) {
  return _session.run_while(_go, [&](pqxx::connection& conn) {
    pqxx::work tx(conn, "sluice_heartbeat");
    _store.beat(tx, me, forget_after);
    sink::control_view v = _store.read(tx);
    tx.commit();
    return v;
  });
}

bool pg_connector_control::set_target(sink::target_state s, const std::string& by) {
  return _session
      .run_while(_go,
                 [&](pqxx::connection& conn) {
                   pqxx::work tx(conn, "sluice_target_state");
                   _store.set_target(tx, s, by);
                   tx.commit();
                   return 0;
                 })
      .has_value();
}

std::optional<int64_t> pg_connector_control::request_restart(bool only_failed) {
  return _session.run_while(_go, [&](pqxx::connection& conn) {
    pqxx::work tx(conn, "sluice_restart");
    const int64_t epoch = _store.request_restart(tx, only_failed);
    tx.commit();
    return epoch;
  });
}

std::optional<bool> pg_connector_control::request_member_restart(const std::string& worker_id) {
  return _session.run_while(_go, [&](pqxx::connection& conn) {
    pqxx::work tx(conn, "sluice_restart");
    const bool found = _store.request_member_restart(tx, worker_id);
    tx.commit();
    return found;
  });
}

void pg_connector_control::leave(const std::string& worker_id) {
  _session.run_while(_go, [&](pqxx::connection& conn) {
    pqxx::work tx(conn, "sluice_leave");
    _store.leave(tx, worker_id);
    tx.commit();
    return 0;
  });
}

}  // namespace sluice
