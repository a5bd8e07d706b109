#include "sinks/postgres/plan/ddl_locks.h"

#include <pqxx/result>

#include "sinks/postgres/sql/pg_identifier.h"

namespace sluice {

std::string seconds_text(std::chrono::milliseconds d) {
  return d.count() % 1000 == 0 ? std::to_string(d.count() / 1000) + " s"
                               : std::to_string(d.count()) + " ms";
}

void set_local(pqxx::transaction_base& tx, const char* setting, std::chrono::milliseconds d) {
  tx.exec(std::string("SET LOCAL ") + setting + " = " + std::to_string(d.count()));
}

std::string lock_holders(pqxx::transaction_base& tx, const target_table& t) {
  const pqxx::result r = tx.exec_params(
      "SELECT a.pid, coalesce(a.usename, ''), coalesce(a.application_name, ''), "
      "coalesce(a.state, ''), coalesce(extract(epoch FROM now() - a.xact_start)::bigint, 0) "
      "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
      "WHERE l.locktype = 'relation' AND l.granted AND l.relation = to_regclass($1) "
      "AND a.pid <> pg_backend_pid() "
      "GROUP BY 1, 2, 3, 4, 5 ORDER BY 5 DESC LIMIT 5",
      quote_identifier(t.schema) + "." + quote_identifier(t.name));
  std::string out;
  for (const auto& row : r) {
    const std::string application = row[2].c_str(), state = row[3].c_str();
    out += out.empty() ? "" : "; ";
    out += std::string("backend ") + row[0].c_str() + " (user " + row[1].c_str();
    if (!application.empty()) out += ", application " + application;
    if (!state.empty()) out += ", " + state;
    out += std::string(", transaction open ") + row[4].c_str() + " s)";
  }
  return out;
}

}  // namespace sluice
