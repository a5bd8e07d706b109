#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/catalog/table_router.h"
#include "sinks/postgres/session/pg_session.h"
#include "sinks/target_key_reader.h"

namespace sluice {

// The target key lookup role: a target table's primary key columns, for sources whose
// messages do not name their key (DSQL; SPEC §1: "the connector asks the sink").
//
// Lifecycle: on any session, constructed without I/O. Threading: the session's thread.
class target_key_reader final : public sink::target_key_reader {
 public:
  explicit target_key_reader(pg_session& session) : _session(session) {}

  // In key order; empty: no such table, or no primary key. Waits out an outage; nothing when
  // go() said stop meanwhile.
  std::optional<std::vector<std::string>> primary_key(const target_table& table,
                                                      const keep_going& go = {}) override;

 private:
  pg_session& _session;
};

}  // namespace sluice
