#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sinks/dead_letters.h"
#include "sinks/mariadb/session/mdb_connection.h"
#include "sinks/mariadb/session/state_schema.h"

namespace sluice::mdb {

// <state db>.dead_letters read and pruned by filter, as the `sluice dead-letters` commands
// need (the contract of postgres/state/dead_letter_store.h; written by dead_letter_writer in
// batch transactions). Values always travel as parameters; only the members of the filter
// that are set add a condition. A table filter matches target_schema.target_table or
// target_table alone; since/until are the CLI's canonical times (2026-12-03T10:00:00.000000Z).
//
// The replay turn is a named lock (GET_LOCK), which on MariaDB belongs to the session and
// survives COMMIT: exactly "held while the session's connection lives". Lock names are at most
// 64 characters: a longer "sluice_replay:<db>:<connector>" is named by its SHA-256.
//
// Lifecycle: per command, no state. Threading: none of its own.
class dead_letter_store {
 public:
  dead_letter_store(const state_schema& schema, std::string connector);

  // Oldest first, at most `limit`, ids after `after_id` (to page through).
  std::vector<stored_dead_letter> select(connection& conn, const dead_letter_filter& f,
                                         int64_t after_id, size_t limit) const;
  uint64_t count(connection& conn, const dead_letter_filter& f) const;
  // The newest id the filter matches, 0 when none.
  int64_t last_id(connection& conn, const dead_letter_filter& f) const;
  // Deletes the filtered letters; returns how many.
  uint64_t purge(connection& conn, const dead_letter_filter& f) const;
  // Deletes these letters (a replay, in the transaction that applied them).
  uint64_t remove(connection& conn, const std::vector<int64_t>& ids) const;

  // One try at the replay turn (GET_LOCK with no wait): true when this session holds it now.
  bool try_replay_turn(connection& conn) const;
  // Returns once this session holds the turn, trying once a second; `waiting` is called once,
  // when another session holds it.
  void take_replay_turn(connection& conn, const std::function<void()>& waiting) const;
  // Gives the turn back before the connection closes (closing it gives it back too).
  void release_replay_turn(connection& conn) const;
  const std::string& replay_lock_name() const { return _lock; }

 private:
  // " WHERE connector = ? AND …" for the filter's set members, their values appended to
  // `params` (pointing into `f` and `numbers`, which must outlive the call).
  std::string where(const dead_letter_filter& f, std::vector<param>& params,
                    std::vector<std::string>& numbers) const;

  std::string _table;
  std::string _connector;
  std::string _lock;
};

}  // namespace sluice::mdb
