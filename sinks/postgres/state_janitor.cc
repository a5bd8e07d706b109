#include "sinks/postgres/state_janitor.h"

#include <pqxx/transaction>

namespace sluice {

std::optional<sink::tombstone_expiry> state_janitor::expire_tombstones(
    std::chrono::seconds retention, const pg_session::keep_going& go) {
  const std::string tombstones = _session.schema().table("tombstones");
  const std::string letters = _session.schema().table("dead_letters");
  // A tombstone's cut-off is the retention before the earliest of now, its table's oldest
  // letter and the oldest letter naming no table (least() skips NULLs). The letters are few
  // (an operator's backlog): one pass over them per expiry, grouped by table.
  const std::string floors =
      "WITH floors AS (SELECT target_schema, target_table, min(created_at) AS oldest FROM " +
      letters +
      " GROUP BY 1, 2), anywhere AS (SELECT oldest FROM floors WHERE target_table IS NULL "
      "ORDER BY oldest LIMIT 1) ";
  const std::string cutoff =
      "least(now(), (SELECT oldest FROM anywhere), (SELECT f.oldest FROM floors f WHERE "
      "f.target_schema = t.target_schema AND f.target_table = t.target_table)) - $1 * "
      "interval '1 second'";
  return _session.run_while(go, [&](pqxx::connection& conn) {
    pqxx::work tx(conn, "sluice_expire_tombstones");
    const auto seconds = static_cast<int64_t>(retention.count());
    sink::tombstone_expiry out;
    out.expired = static_cast<size_t>(
        tx.exec_params(floors + "DELETE FROM " + tombstones +
                           " t WHERE t.deleted_at < now() - $1 * interval '1 second' AND "
                           "t.deleted_at < " +
                           cutoff,
                       seconds)
            .affected_rows());
    out.kept = tx.exec_params("SELECT count(*) FROM " + tombstones +
                                  " WHERE deleted_at < now() - $1 * interval '1 second'",
                              seconds)[0][0]
                   .as<size_t>();
    tx.commit();
    return out;
  });
}

}  // namespace sluice
