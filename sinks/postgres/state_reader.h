#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/decoded.h"
#include "sinks/postgres/session/pg_session.h"
#include "sinks/postgres/state/chunk_store.h"
#include "sinks/postgres/state/offset_store.h"
#include "sinks/postgres/state/table_progress_store.h"
#include "sinks/state_reader.h"

namespace sluice {

// The state reader role: what sluice's state schema holds for a connector, read in short
// read-only transactions — the learned catalog at start-up, offsets and table progress for
// `status`, the chunks still waiting. Never writes.
//
// Lifecycle: on any session, constructed without I/O. Threading: the session's thread.
class state_reader final : public sink::state_reader {
 public:
  state_reader(pg_session& session, std::string connector);

  // What <state schema>.catalog holds: at start-up, teach the table catalog what metadata
  // records taught before the committed offsets. Nothing when go() said stop meanwhile.
  std::optional<std::vector<catalog_update>> load_catalog(const keep_going& go = {}) override;
  // Stored offsets of a connector (default: this one).
  std::vector<stored_offset> read_offsets() override;
  std::vector<stored_offset> read_offsets(const std::string& connector);
  // Per target table of this connector, the newest applied source timestamp.
  std::vector<table_progress> read_table_progress() override;
  // Chunks of this connector whose pieces wait for the rest, as committed now; nothing when
  // go() said stop while waiting out an outage.
  std::optional<size_t> pending_chunks(const keep_going& go = {}) override;

 private:
  pg_session& _session;
  std::string _connector;
};

}  // namespace sluice
