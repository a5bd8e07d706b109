#include "sinks/mariadb/state/tombstone_expiry.h"

namespace sluice::mdb {

tombstone_expiry::tombstone_expiry(const state_schema& schema)
    : _tombstones(schema.table("tombstones")), _letters(schema.table("dead_letters")) {}

sink::tombstone_expiry tombstone_expiry::expire(connection& conn,
                                                std::chrono::seconds retention) const {
  const std::string seconds = std::to_string(retention.count());
  // Older than the retention, and no letter of its table (or naming none) written within the
  // retention after it: PostgreSQL's cut-off, least(now, oldest letters) - retention, said as
  // "no such letter". The letters are few (an operator's backlog).
  const std::string old =
      _tombstones + ".deleted_at < UTC_TIMESTAMP(6) - INTERVAL CAST(? AS SIGNED) SECOND";
  sink::tombstone_expiry out;
  out.expired = static_cast<size_t>(conn.exec(
      "DELETE FROM " + _tombstones + " WHERE " + old + " AND NOT EXISTS (SELECT 1 FROM " +
          _letters + " d WHERE (d.target_table IS NULL OR (d.target_schema = " + _tombstones +
          ".target_schema AND d.target_table = " + _tombstones +
          ".target_table)) AND d.created_at <= " + _tombstones +
          ".deleted_at + INTERVAL CAST(? AS SIGNED) SECOND)",
      std::vector{param::text(seconds), param::text(seconds)}));
  out.kept = static_cast<size_t>(
      std::stoull(*conn.query("SELECT count(*) FROM " + _tombstones + " WHERE " + old,
                              std::vector{param::text(seconds)})
                       .at(0, 0)));
  return out;
}

}  // namespace sluice::mdb
