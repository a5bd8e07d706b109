#include "sinks/mariadb/state_janitor.h"

#include "sinks/mariadb/session/mdb_transaction.h"
#include "sinks/mariadb/state/tombstone_expiry.h"

namespace sluice::mdb {

std::optional<sink::tombstone_expiry> state_janitor::expire_tombstones(
    std::chrono::seconds retention, const keep_going& go) {
  const tombstone_expiry expiry(_session.schema());
  return _session.run_while(go, [&](connection& conn) {
    transaction tx(conn);
    sink::tombstone_expiry out = expiry.expire(conn, retention);
    tx.commit();
    return out;
  });
}

}  // namespace sluice::mdb
