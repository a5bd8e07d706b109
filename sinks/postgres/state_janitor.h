#pragma once

#include <chrono>
#include <cstddef>
#include <optional>

#include "sinks/postgres/session/pg_session.h"
#include "sinks/state_janitor.h"

namespace sluice {

// The expiry role: deletes tombstones older than tombstone.retention (SPEC §4), in a short
// transaction of its own, so that apply never waits for it. A tombstone stays while a stored
// dead letter of its table, or one naming no table (a decode letter may hold any table's
// change), was written within the retention after it: `dead-letters replay` of that letter
// must still meet it (issue 27: an expired tombstone let a replay resurrect a deleted row).
// (Pending chunks expire in the batch transaction, in stream time: state/chunk_store.h.)
//
// Lifecycle: on a session of its own (the runtime's janitor thread). Threading: the
// session's thread.
class state_janitor final : public sink::state_janitor {
 public:
  explicit state_janitor(pg_session& session) : _session(session) {}

  // Nothing when go() said stop while waiting out an outage.
  std::optional<sink::tombstone_expiry> expire_tombstones(std::chrono::seconds retention,
                                                          const keep_going& go = {}) override;

 private:
  pg_session& _session;
};

}  // namespace sluice
