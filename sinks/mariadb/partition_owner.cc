#include "sinks/mariadb/partition_owner.h"

#include "sinks/mariadb/session/mdb_transaction.h"

namespace sluice::mdb {

std::optional<std::vector<claimed_partition>> partition_owner::claim(
    const std::string& topic, const std::vector<partition_id>& partitions, const keep_going& go) {
  return _session.run_while(go, [&](connection& conn) {
    transaction tx(conn);
    auto out = _offsets.claim(conn, topic, partitions);
    tx.commit();
    return out;
  });
}

std::optional<std::vector<stored_offset>> partition_owner::read_offsets(const keep_going& go) {
  return _session.run_while(go, [&](connection& conn) { return _offsets.read(conn); });
}

}  // namespace sluice::mdb
