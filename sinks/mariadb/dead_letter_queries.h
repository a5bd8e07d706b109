#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sinks/dead_letter_store.h"
#include "sinks/mariadb/session/mdb_session.h"
#include "sinks/mariadb/state/dead_letter_store.h"

namespace sluice::mdb {

// The dead-letter store role on MariaDB (sinks/dead_letter_store.h): the `sluice dead-letters`
// commands' queries, each in a short transaction; the replay turn is the session's named lock.
// Lifecycle: made by mdb_target_session. Threading: its thread.
class dead_letter_queries final : public sink::dead_letter_store {
 public:
  dead_letter_queries(mdb_session& session, std::string connector)
      : _session(session), _store(session.schema(), std::move(connector)) {}

  listing list(const dead_letter_filter& f, size_t limit) override;
  std::optional<stored_dead_letter> show(const dead_letter_filter& f) override;
  std::vector<stored_dead_letter> page(const dead_letter_filter& f, int64_t after_id,
                                       size_t limit) override;
  int64_t last_id(const dead_letter_filter& f) override;
  uint64_t purge(const dead_letter_filter& f, bool dry_run) override;
  void take_replay_turn(const std::function<void()>& waiting) override;

 private:
  mdb_session& _session;
  mdb::dead_letter_store _store;
};

}  // namespace sluice::mdb
