#include "sinks/postgres/offset_admin.h"

#include <pqxx/transaction>

namespace sluice {

offset_admin::offset_admin(pg_session& session, std::string connector)
    : _session(session), _connector(std::move(connector)) {}

std::vector<stored_offset> offset_admin::reset(const std::vector<offset_target>& targets) {
  const offset_store store(_session.schema(), _connector);
  // A retry after a lost COMMIT bumps the epochs once more: harmless, the offsets are the same.
  return _session.run([&](pqxx::connection& conn) {
    pqxx::work tx(conn, "sluice_offsets_reset");
    std::vector<stored_offset> out = store.reset(tx, targets);
    tx.commit();
    return out;
  });
}

std::vector<stored_offset> offset_admin::clear(const std::vector<offset_key>& partitions) {
  const offset_store store(_session.schema(), _connector);
  return _session.run([&](pqxx::connection& conn) {
    pqxx::work tx(conn, "sluice_offsets_clear");
    std::vector<stored_offset> out = store.clear(tx, partitions);
    tx.commit();
    return out;
  });
}

}  // namespace sluice
