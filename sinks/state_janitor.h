#pragma once

#include <chrono>
#include <cstddef>
#include <optional>

#include "sinks/keep_going.h"

namespace sluice::sink {

// What one expiry pass did.
struct tombstone_expiry {
  size_t expired = 0;  // tombstones deleted
  // Past the retention but kept: a stored dead letter of their table (or one that names no
  // table) was written less than the retention after them, so its replay may carry a change
  // older than their delete; they go once the letters are replayed or purged.
  size_t kept = 0;
};

// The expiry role, target-neutral: deletes tombstones older than tombstone.retention, apart
// from any batch, but never one that a stored dead letter may still need. PostgreSQL's:
// postgres/state_janitor.h.
//
// Lifecycle: made by a target_session, lives no longer than it. Threading: the session's.
class state_janitor {
 public:
  virtual ~state_janitor() = default;

  // Nothing when go() said stop while waiting out an outage.
  virtual std::optional<tombstone_expiry> expire_tombstones(std::chrono::seconds retention,
                                                            const keep_going& go = {}) = 0;
};

}  // namespace sluice::sink
