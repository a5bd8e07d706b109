#include "sinks/postgres/state/control_store.h"

#include <pqxx/result>

#include "sinks/postgres/sql/pg_array.h"

namespace sluice {

control_store::control_store(const state_schema& schema, std::string connector)
    : _control(schema.table("connector_control")),
      _members(schema.table("members")),
      _connector(std::move(connector)) {}

void control_store::beat(pqxx::transaction_base& tx, const sink::member_heartbeat& me,
                         std::chrono::seconds forget_after) const {
  pg_array topics;
  for (const std::string& t : me.topics)
    topics.add(t);
  tx.exec_params("INSERT INTO " + _members +
                     " AS m (connector, worker_id, state, trace, topics) "
                     "VALUES ($1, $2, $3, nullif($4, ''), $5::text[]) "
                     "ON CONFLICT (connector, worker_id) DO UPDATE SET state = excluded.state, "
                     "trace = excluded.trace, topics = excluded.topics, heartbeat_at = now()",
                 _connector, me.worker_id, me.state, me.trace, topics.take());
  tx.exec_params("DELETE FROM " + _members +
                     " WHERE connector = $1 AND heartbeat_at < now() - make_interval(secs => $2)",
                 _connector, static_cast<double>(forget_after.count()));
}

sink::control_view control_store::read(pqxx::transaction_base& tx) const {
  sink::control_view v;
  const pqxx::result control =
      tx.exec_params("SELECT target_state, restart_epoch, restart_only_failed FROM " + _control +
                         " WHERE connector = $1",
                     _connector);
  if (!control.empty()) {
    v.target = sink::parse_target_state(control[0][0].as<std::string>())
                   .value_or(sink::target_state::running);
    v.restart_epoch = control[0][1].as<int64_t>();
    v.restart_only_failed = control[0][2].as<bool>();
  }
  // topics as one tab-separated text: no array parsing on this side (topic names hold no tab).
  const pqxx::result members = tx.exec_params(
      "SELECT worker_id, state, coalesce(trace, ''), array_to_string(topics, E'\\t'), "
      "(extract(epoch FROM now() - heartbeat_at) * 1000)::bigint, restart_epoch FROM " +
          _members + " WHERE connector = $1 ORDER BY worker_id",
      _connector);
  for (const pqxx::row& row : members) {
    sink::member_record& m = v.members.emplace_back();
    m.heartbeat.worker_id = row[0].as<std::string>();
    m.heartbeat.state = row[1].as<std::string>();
    m.heartbeat.trace = row[2].as<std::string>();
    const std::string topics = row[3].as<std::string>();
    for (size_t at = 0; !topics.empty() && at <= topics.size();) {
      const size_t tab = topics.find('\t', at);
      m.heartbeat.topics.push_back(
          topics.substr(at, tab == std::string::npos ? std::string::npos : tab - at));
      if (tab == std::string::npos) break;
      at = tab + 1;
    }
    m.age_ms = std::max<int64_t>(0, row[4].as<int64_t>());
    m.restart_epoch = row[5].as<int64_t>();
  }
  return v;
}

void control_store::set_target(pqxx::transaction_base& tx, sink::target_state s,
                               const std::string& by) const {
  tx.exec_params("INSERT INTO " + _control +
                     " AS c (connector, target_state, changed_by) VALUES ($1, $2, $3) "
                     "ON CONFLICT (connector) DO UPDATE SET target_state = excluded.target_state, "
                     "changed_by = excluded.changed_by, changed_at = now()",
                 _connector, sink::to_string(s), by);
}

int64_t control_store::request_restart(pqxx::transaction_base& tx, bool only_failed) const {
  return tx
      .exec_params1("INSERT INTO " + _control +
                        " AS c (connector, restart_epoch, restart_only_failed) "
                        "VALUES ($1, 1, $2) ON CONFLICT (connector) DO UPDATE SET "
                        "restart_epoch = c.restart_epoch + 1, "
                        "restart_only_failed = excluded.restart_only_failed, changed_at = now() "
                        "RETURNING restart_epoch",
                    _connector, only_failed)[0]
      .as<int64_t>();
}

bool control_store::request_member_restart(pqxx::transaction_base& tx,
                                           const std::string& worker_id) const {
  return !tx.exec_params("UPDATE " + _members +
                             " SET restart_epoch = restart_epoch + 1 "
                             "WHERE connector = $1 AND worker_id = $2 RETURNING 1",
                         _connector, worker_id)
              .empty();
}

void control_store::leave(pqxx::transaction_base& tx, const std::string& worker_id) const {
  tx.exec_params("DELETE FROM " + _members + " WHERE connector = $1 AND worker_id = $2", _connector,
                 worker_id);
}

}  // namespace sluice
