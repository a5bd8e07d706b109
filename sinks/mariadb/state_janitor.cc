#include "sinks/mariadb/state_janitor.h"

#include "sinks/mariadb/session/mdb_transaction.h"
#include "sinks/mariadb/state/tombstone_expiry.h"

namespace sluice::mdb {

std::optional<sink::tombstone_expiry> state_janitor::expire_tombstones(
    std::chrono::seconds retention, const keep_going& go) {
  const tombstone_expiry expiry(_session.schema());
  auto out = _session.run_while(go, [&](connection& conn) {
    transaction tx(conn);
    sink::tombstone_expiry out = expiry.expire(conn, retention);
    tx.commit();
    return out;
  });
  if (!out) return out;
  try {
    trim_key_locks(go);
  } catch (const std::exception&) {
    // Housekeeping: what failed now is tried again by the next pass, and writers need none of
    // it (a large key_locks only costs its disk).
  }
  return out;
}

std::optional<uint64_t> state_janitor::trim_key_locks(const keep_going& go, uint64_t past) {
  const state_schema& schema = _session.schema();
  // InnoDB's estimate: counting a million rows exactly would cost more than the trim.
  const auto rows = _session.run_while(go, [&](connection& conn) -> uint64_t {
    const result r = conn.query(
        "SELECT table_rows FROM information_schema.tables WHERE table_schema = ? AND "
        "table_name = 'key_locks'",
        std::vector{param::text(schema.name())});
    return r.empty() || !r.at(0, 0) ? 0 : std::stoull(*r.at(0, 0));
  });
  if (!rows) return std::nullopt;
  if (*rows <= past) return 0;
  const std::string sql = "DELETE FROM " + schema.table("key_locks") + " ORDER BY key_hash LIMIT " +
                          std::to_string(trim_chunk);
  uint64_t removed = 0;
  for (;;) {
    const auto n = _session.run_while(go, [&](connection& conn) { return conn.exec(sql); });
    if (!n) return std::nullopt;
    removed += *n;
    if (*n < static_cast<uint64_t>(trim_chunk)) return removed;
  }
}

}  // namespace sluice::mdb
