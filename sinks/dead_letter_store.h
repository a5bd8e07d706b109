#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "sinks/dead_letters.h"

namespace sluice::sink {

// The dead-letter store role, target-neutral: the stored dead letters as the
// `sluice dead-letters` commands list, show, replay and purge them, each call in a short
// transaction of its own. PostgreSQL's: postgres/dead_letter_queries.h.
//
// Lifecycle: made by a target_session, lives no longer than it. Threading: the session's.
class dead_letter_store {
 public:
  virtual ~dead_letter_store() = default;

  struct listing {
    std::vector<stored_dead_letter> letters;  // oldest first, at most the limit
    uint64_t total = 0;                       // how many the filter matches
  };
  virtual listing list(const dead_letter_filter& f, size_t limit) = 0;
  // The first letter the filter matches.
  virtual std::optional<stored_dead_letter> show(const dead_letter_filter& f) = 0;
  // Oldest first, at most `limit`, ids after `after_id` (to page through).
  virtual std::vector<stored_dead_letter> page(const dead_letter_filter& f, int64_t after_id,
                                               size_t limit) = 0;
  // The newest id the filter matches, 0 when none.
  virtual int64_t last_id(const dead_letter_filter& f) = 0;
  // Deletes the filtered letters and says how many went; dry_run: only counts them.
  virtual uint64_t purge(const dead_letter_filter& f, bool dry_run) = 0;
  // `dead-letters replay`: returns once no other replay of this connector runs, and keeps the
  // turn while the session's connection lives, so that two replays never take the same
  // letters (a keyless one would be appended twice). `waiting` is called once, when another
  // replay holds the turn.
  virtual void take_replay_turn(const std::function<void()>& waiting) = 0;
};

}  // namespace sluice::sink
