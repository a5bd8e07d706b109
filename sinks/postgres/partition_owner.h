#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sinks/partition_owner.h"
#include "sinks/postgres/session/pg_session.h"
#include "sinks/postgres/state/offset_store.h"

namespace sluice {

// The partition owner role (SPEC §4 "Batch transaction"): claims partitions for a connector
// on assignment — each claim bumps the partition's owner epoch, so that a zombie's next
// compare-and-set fails — and reads the stored offsets back when the runtime resyncs.
//
// Lifecycle: on a session of its own (the runtime's owner thread), constructed without I/O.
// Threading: the session's thread.
class partition_owner final : public sink::partition_owner {
 public:
  partition_owner(pg_session& session, std::string connector);

  // Takes ownership of partitions of a topic: bumps their owner epochs and returns them with
  // the offset to resume from. Nothing when go() said stop while waiting out an outage.
  // Claiming twice (after an unknown commit outcome) only raises the epoch further.
  std::optional<std::vector<claimed_partition>> claim(const std::string& topic,
                                                      const std::vector<partition_id>& partitions,
                                                      const keep_going& go = {}) override;
  // The connector's stored offsets, every topic and partition (resync).
  std::optional<std::vector<stored_offset>> read_offsets(const keep_going& go = {}) override;

 private:
  pg_session& _session;
  offset_store _offsets;
};

}  // namespace sluice
