#pragma once

#include <chrono>
#include <optional>

#include "sinks/mariadb/session/mdb_session.h"
#include "sinks/state_janitor.h"

namespace sluice::mdb {

// The expiry role on MariaDB (sinks/state_janitor.h): state/tombstone_expiry.h's pass in a
// short transaction of its own. Lifecycle: made by mdb_target_session. Threading: its thread.
class state_janitor final : public sink::state_janitor {
 public:
  explicit state_janitor(mdb_session& session) : _session(session) {}
  std::optional<sink::tombstone_expiry> expire_tombstones(std::chrono::seconds retention,
                                                          const keep_going& go = {}) override;

 private:
  mdb_session& _session;
};

}  // namespace sluice::mdb
