#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/model/decoded.h"
#include "sinks/keep_going.h"
#include "sinks/offsets.h"
#include "sinks/table_progress.h"

namespace sluice::sink {

// The state reader role, target-neutral: what the sink's state holds for a connector — the
// learned catalog at start-up, offsets and table progress for `status`, the chunks still
// waiting. Never writes. PostgreSQL's: postgres/state_reader.h.
//
// Lifecycle: made by a target_session, lives no longer than it. Threading: the session's.
class state_reader {
 public:
  virtual ~state_reader() = default;

  // Nothing when go() said stop while waiting out an outage or a stalled statement.
  virtual std::optional<std::vector<catalog_update>> load_catalog(const keep_going& go = {}) = 0;
  virtual std::vector<stored_offset> read_offsets() = 0;
  virtual std::vector<table_progress> read_table_progress() = 0;
  // Nothing when go() said stop while waiting out an outage.
  virtual std::optional<size_t> pending_chunks(const keep_going& go = {}) = 0;
};

}  // namespace sluice::sink
