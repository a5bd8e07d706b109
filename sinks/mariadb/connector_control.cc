#include "sinks/mariadb/connector_control.h"

#include "sinks/mariadb/session/mdb_transaction.h"

namespace sluice::mdb {

template <typename F>
auto connector_control::in_transaction(F&& f) {
  return _session.run_while(_go, [&](connection& conn) {
    transaction tx(conn);
    auto out = f(conn);
    tx.commit();
    return out;
  });
}

std::optional<sink::control_view> connector_control::heartbeat(const sink::member_heartbeat& me,
                                                               std::chrono::seconds forget_after) {
  return in_transaction([&](connection& conn) {
    _store.beat(conn, me, forget_after);
    return _store.read(conn);
  });
}

bool connector_control::set_target(sink::target_state s, const std::string& by) {
  return in_transaction([&](connection& conn) {
           _store.set_target(conn, s, by);
           return 0;
         })
      .has_value();
}

std::optional<int64_t> connector_control::request_restart(bool only_failed) {
  return in_transaction(
      [&](connection& conn) { return _store.request_restart(conn, only_failed); });
}

std::optional<bool> connector_control::request_member_restart(const std::string& worker_id) {
  return in_transaction(
      [&](connection& conn) { return _store.request_member_restart(conn, worker_id); });
}

void connector_control::leave(const std::string& worker_id) {
  in_transaction([&](connection& conn) {
    _store.leave(conn, worker_id);
    return 0;
  });
}

}  // namespace sluice::mdb
