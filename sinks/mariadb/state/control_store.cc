#include "sinks/mariadb/state/control_store.h"

#include <algorithm>
#include <map>

#include "core/model/json_text.h"
#include "sinks/mariadb/state/state_sql.h"

namespace sluice::mdb {

control_store::control_store(const state_schema& schema, std::string connector, sql_dialect dialect)
    : _control(schema.table("connector_control")),
      _members(schema.table("members")),
      _connector(std::move(connector)),
      _dialect(dialect) {}

void control_store::beat(connection& conn, const sink::member_heartbeat& me,
                         std::chrono::seconds forget_after) const {
  std::string topics = "[";
  for (const std::string& t : me.topics) {
    if (topics.size() > 1) topics += ", ";
    append_json_string(topics, t);
  }
  topics += "]";
  conn.exec(member_beat_sql(_members, _dialect),
            std::vector{param::text(_connector), param::text(me.worker_id), param::text(me.state),
                        param::text(me.trace), param::text(topics)});
  const std::string seconds = std::to_string(forget_after.count());
  conn.exec("DELETE FROM " + _members +
                " WHERE connector = ? AND heartbeat_at < UTC_TIMESTAMP(6) - INTERVAL "
                "CAST(? AS SIGNED) SECOND",
            std::vector{param::text(_connector), param::text(seconds)});
}

sink::control_view control_store::read(connection& conn) const {
  sink::control_view v;
  const std::vector<param> me{param::text(_connector)};
  const result control =
      conn.query("SELECT target_state, restart_epoch, restart_only_failed FROM " + _control +
                     " WHERE connector = ?",
                 me);
  if (!control.empty()) {
    v.target = sink::parse_target_state(control.at(0, 0).value_or(""))
                   .value_or(sink::target_state::running);
    v.restart_epoch = std::stoll(*control.at(0, 1));
    v.restart_only_failed = control.at(0, 2) == "1";
  }
  const result members = conn.query(
      "SELECT worker_id, state, coalesce(trace, ''), "
      "TIMESTAMPDIFF(MICROSECOND, heartbeat_at, UTC_TIMESTAMP(6)) DIV 1000, restart_epoch FROM " +
          _members + " WHERE connector = ? ORDER BY worker_id",
      me);
  std::map<std::string, size_t> at;
  for (const auto& row : members.rows) {
    sink::member_record& m = v.members.emplace_back();
    m.heartbeat.worker_id = *row.at(0);
    m.heartbeat.state = *row.at(1);
    m.heartbeat.trace = *row.at(2);
    m.age_ms = std::max<int64_t>(0, std::stoll(*row.at(3)));
    m.restart_epoch = std::stoll(*row.at(4));
    at[m.heartbeat.worker_id] = v.members.size() - 1;
  }
  // The topics, unnested by the server (no JSON parser on this side), in array order.
  const result topics = conn.query(
      "SELECT m.worker_id, j.topic FROM " + _members +
          " m, JSON_TABLE(m.topics, '$[*]' COLUMNS (n FOR ORDINALITY, topic varchar(249) PATH "
          "'$')) j WHERE m.connector = ? ORDER BY m.worker_id, j.n",
      me);
  for (const auto& row : topics.rows) {
    auto it = at.find(*row.at(0));
    if (it != at.end() && row.at(1)) v.members[it->second].heartbeat.topics.push_back(*row.at(1));
  }
  return v;
}

void control_store::set_target(connection& conn, sink::target_state s,
                               const std::string& by) const {
  conn.exec(control_target_sql(_control, _dialect),
            std::vector{param::text(_connector), param::text(sink::to_string(s)), param::text(by)});
}

int64_t control_store::request_restart(connection& conn, bool only_failed) const {
  conn.exec(control_restart_sql(_control, _dialect),
            std::vector{param::text(_connector), param::text(only_failed ? "1" : "0")});
  // This transaction reads its own write (and holds the row's lock until it ends).
  return std::stoll(*conn.query("SELECT restart_epoch FROM " + _control + " WHERE connector = ?",
                                std::vector{param::text(_connector)})
                         .at(0, 0));
}

bool control_store::request_member_restart(connection& conn, const std::string& worker_id) const {
  // Matched rows (CLIENT_FOUND_ROWS): a member that exists always counts.
  return conn.exec("UPDATE " + _members +
                       " SET restart_epoch = restart_epoch + 1 WHERE connector = ? AND "
                       "worker_id = ?",
                   std::vector{param::text(_connector), param::text(worker_id)}) > 0;
}

void control_store::leave(connection& conn, const std::string& worker_id) const {
  conn.exec("DELETE FROM " + _members + " WHERE connector = ? AND worker_id = ?",
            std::vector{param::text(_connector), param::text(worker_id)});
}

}  // namespace sluice::mdb
