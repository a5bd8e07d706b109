#include "sinks/postgres/partition_owner.h"

#include <pqxx/transaction>

namespace sluice {

partition_owner::partition_owner(pg_session& session, std::string connector)
    : _session(session), _offsets(session.schema(), std::move(connector)) {}

std::optional<std::vector<claimed_partition>> partition_owner::claim(
    const std::string& topic, const std::vector<partition_id>& partitions,
    const pg_session::keep_going& go) {
  return _session.run_while(go, [&](pqxx::connection& conn) {
    pqxx::work tx(conn, "sluice_claim");
    auto out = _offsets.claim(tx, topic, partitions);
    tx.commit();
    return out;
  });
}

std::optional<std::vector<stored_offset>> partition_owner::read_offsets(
    const pg_session::keep_going& go) {
  return _session.run_while(go, [&](pqxx::connection& conn) {
    pqxx::read_transaction tx(conn, "sluice_read_offsets");
    return _offsets.read(tx);
  });
}

}  // namespace sluice
