#include "sinks/mariadb/offset_admin.h"

#include "sinks/mariadb/session/mdb_transaction.h"
#include "sinks/mariadb/state/offset_store.h"

namespace sluice::mdb {

std::vector<stored_offset> offset_admin::reset(const std::vector<offset_target>& targets) {
  const offset_store store(_session.schema(), _connector);
  // A retry after a lost COMMIT bumps the epochs once more: harmless, the offsets are the same.
  return _session.run([&](connection& conn) {
    transaction tx(conn);
    std::vector<stored_offset> out = store.reset(conn, targets);
    tx.commit();
    return out;
  });
}

std::vector<stored_offset> offset_admin::clear(const std::vector<offset_key>& partitions) {
  const offset_store store(_session.schema(), _connector);
  return _session.run([&](connection& conn) {
    transaction tx(conn);
    std::vector<stored_offset> out = store.clear(conn, partitions);
    tx.commit();
    return out;
  });
}

}  // namespace sluice::mdb
