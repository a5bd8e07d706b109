#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/batch_records.h"
#include "core/model/named_type.h"

namespace sluice {

// The offsets a sink keeps for a connector, in its own state (SPEC §4 "Batch transaction"),
// as the partition owner, the state reader and the offset admin hand them out.

// A partition this owner now holds: its new epoch and where to resume (none: no offset was
// ever committed; start from auto.offset.reset).
struct claimed_partition {
  partition_id partition{0};
  owner_epoch epoch{0};
  std::optional<kafka_offset> next;
};

struct stored_offset {
  std::string topic;
  partition_id partition{0};
  std::optional<kafka_offset> next;
  owner_epoch epoch{0};
  std::string updated_at;  // as the target prints it
};

// A partition of a topic, as the offset admin names it.
struct offset_key {
  std::string topic;
  partition_id partition{0};
};

// Where `sluice offsets reset` moves a partition.
struct offset_target {
  std::string topic;
  partition_id partition{0};
  kafka_offset next{0};
};

// What a batch transaction whose COMMIT was in doubt did, told by its partitions' offsets
// read back afterwards: committed when every partition it moved is at its next offset under
// the batch's epoch; not committed when every one is still at the expected offset; stale
// when another owner has taken or moved a partition since (or the picture is mixed, which
// one transaction cannot produce). Partitions a batch does not move tell nothing.
enum class commit_outcome : uint8_t { committed, not_committed, stale };
commit_outcome resolve_commit(const std::vector<partition_progress>& progress,
                              const std::vector<stored_offset>& stored);

}  // namespace sluice
