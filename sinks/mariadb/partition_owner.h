#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sinks/mariadb/session/mdb_session.h"
#include "sinks/mariadb/state/offset_store.h"
#include "sinks/partition_owner.h"

namespace sluice::mdb {

// The partition owner role on MariaDB (sinks/partition_owner.h; the model:
// postgres/partition_owner.h): claims bump the owner epochs in one short transaction.
// Lifecycle: made by mdb_target_session, lives no longer than it. Threading: its thread.
class partition_owner final : public sink::partition_owner {
 public:
  partition_owner(mdb_session& session, std::string connector)
      : _session(session), _offsets(session.schema(), std::move(connector)) {}

  std::optional<std::vector<claimed_partition>> claim(const std::string& topic,
                                                      const std::vector<partition_id>& partitions,
                                                      const keep_going& go = {}) override;
  std::optional<std::vector<stored_offset>> read_offsets(const keep_going& go = {}) override;

 private:
  mdb_session& _session;
  offset_store _offsets;
};

}  // namespace sluice::mdb
