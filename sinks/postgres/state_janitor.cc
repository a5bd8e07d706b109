#include "sinks/postgres/state_janitor.h"

#include <pqxx/transaction>

namespace sluice {

std::optional<size_t> state_janitor::expire_tombstones(std::chrono::seconds retention,
                                                       const pg_session::keep_going& go) {
  const std::string table = _session.schema().table("tombstones");
  return _session.run_while(go, [&](pqxx::connection& conn) {
    pqxx::work tx(conn, "sluice_expire_tombstones");
    const pqxx::result r = tx.exec_params(
        "DELETE FROM " + table + " WHERE deleted_at < now() - $1 * interval '1 second'",
        static_cast<int64_t>(retention.count()));
    tx.commit();
    return static_cast<size_t>(r.affected_rows());
  });
}

}  // namespace sluice
