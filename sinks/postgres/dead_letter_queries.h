#pragma once

#include <string>

#include "sinks/dead_letter_store.h"
#include "sinks/postgres/session/pg_session.h"
#include "sinks/postgres/state/dead_letter_store.h"

namespace sluice {

// The dead-letter store role (sinks/dead_letter_store.h) on a PostgreSQL session: each call
// one short transaction of state/dead_letter_store.h's queries, as `sluice dead-letters` runs
// them (read-only ones for list, show, page and last id; purge in a transaction it commits).
//
// Lifecycle: one per command, on its session. Threading: the session's thread.
class dead_letter_queries final : public sink::dead_letter_store {
 public:
  dead_letter_queries(pg_session& session, std::string connector)
      : _session(session), _connector(connector), _store(session.schema(), std::move(connector)) {}

  listing list(const dead_letter_filter& f, size_t limit) override;
  std::optional<stored_dead_letter> show(const dead_letter_filter& f) override;
  std::vector<stored_dead_letter> page(const dead_letter_filter& f, int64_t after_id,
                                       size_t limit) override;
  int64_t last_id(const dead_letter_filter& f) override;
  uint64_t purge(const dead_letter_filter& f, bool dry_run) override;
  // A session-level advisory lock on the connector's name and state schema, polled once a
  // second (a blocking pg_advisory_lock would outlast the session's round-trip deadline).
  void take_replay_turn(const std::function<void()>& waiting) override;

 private:
  pg_session& _session;
  std::string _connector;
  sluice::dead_letter_store _store;  // the queries (state/), not the role
};

}  // namespace sluice
