#pragma once

#include <chrono>
#include <cstddef>
#include <optional>

#include "sinks/keep_going.h"

namespace sluice::sink {

// The expiry role, target-neutral: deletes tombstones older than tombstone.retention, apart
// from any batch. PostgreSQL's: postgres/state_janitor.h.
//
// Lifecycle: made by a target_session, lives no longer than it. Threading: the session's.
class state_janitor {
 public:
  virtual ~state_janitor() = default;

  // How many tombstones went; nothing when go() said stop while waiting out an outage.
  virtual std::optional<size_t> expire_tombstones(std::chrono::seconds retention,
                                                  const keep_going& go = {}) = 0;
};

}  // namespace sluice::sink
