#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/named_type.h"
#include "sinks/keep_going.h"
#include "sinks/offsets.h"

namespace sluice::sink {

// The partition owner role, target-neutral: claims partitions on assignment (each claim bumps
// the owner epoch, so that a zombie's next compare-and-set fails) and reads the stored offsets
// back on a resync. PostgreSQL's: postgres/partition_owner.h.
//
// Lifecycle: made by a target_session, lives no longer than it. Threading: the session's.
class partition_owner {
 public:
  virtual ~partition_owner() = default;

  // The partitions with their new epochs and where to resume; nothing when go() said stop
  // while waiting out an outage.
  virtual std::optional<std::vector<claimed_partition>> claim(
      const std::string& topic, const std::vector<partition_id>& partitions,
      const keep_going& go = {}) = 0;
  // The connector's stored offsets, every topic and partition.
  virtual std::optional<std::vector<stored_offset>> read_offsets(const keep_going& go = {}) = 0;
};

}  // namespace sluice::sink
