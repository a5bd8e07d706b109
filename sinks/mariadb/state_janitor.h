#pragma once

#include <chrono>
#include <optional>

#include "sinks/mariadb/session/mdb_session.h"
#include "sinks/state_janitor.h"

namespace sluice::mdb {

// The expiry role on MariaDB (sinks/state_janitor.h): state/tombstone_expiry.h's pass in a
// short transaction of its own, then the trim of key_locks (session/key_locks.h: a row per key
// ever written) once it holds more than trim_key_locks_past rows — emptied, in autocommitted
// deletes of trim_chunk rows in key order (as writers lock them: no cycle; a row a writer
// holds is waited for, and made again by its next writer). Lifecycle: made by
// mdb_target_session. Threading: its thread.
class state_janitor final : public sink::state_janitor {
 public:
  explicit state_janitor(mdb_session& session) : _session(session) {}
  std::optional<sink::tombstone_expiry> expire_tombstones(std::chrono::seconds retention,
                                                          const keep_going& go = {}) override;

  // key_locks' rows removed (0 below the limit); nothing when stopped first.
  std::optional<uint64_t> trim_key_locks(const keep_going& go = {}, uint64_t past = trim_past);
  static constexpr uint64_t trim_past = 1'000'000;
  static constexpr int trim_chunk = 10'000;

 private:
  mdb_session& _session;
};

}  // namespace sluice::mdb
