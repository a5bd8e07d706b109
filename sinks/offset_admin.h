#pragma once

#include <vector>

#include "sinks/offsets.h"

namespace sluice::sink {

// The offset admin role, target-neutral: what `sluice offsets reset` writes — each chosen
// partition moved with its owner epoch bumped, all at once. Run only while no sluice of the
// connector is live. PostgreSQL's: postgres/offset_admin.h.
//
// Lifecycle: made by a target_session, lives no longer than it. Threading: the session's.
class offset_admin {
 public:
  virtual ~offset_admin() = default;

  virtual std::vector<stored_offset> reset(const std::vector<offset_target>& targets) = 0;
  // Forgets the committed offsets of `partitions` (all of the connector's when empty), the
  // epochs bumped: they start over from auto.offset.reset (KIP-875's "offset": null, DELETE).
  virtual std::vector<stored_offset> clear(const std::vector<offset_key>& partitions) = 0;
};

}  // namespace sluice::sink
