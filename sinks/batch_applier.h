#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/merge/merged_batch.h"
#include "core/model/batch_records.h"
#include "sinks/apply_result.h"
#include "sinks/batch_metadata.h"
#include "sinks/keep_going.h"

namespace sluice::sink {

// The batch applier role, target-neutral: one merged batch into the target in one
// transaction, together with its dead letters and the offsets compare-and-set (SPEC §4
// "Batch transaction"). PostgreSQL's: postgres/batch_applier.h, which states the steps.
//
// One virtual call per batch, never per row. Lifecycle: made by a target_session, lives no
// longer than it. Threading: the session's thread.
class batch_applier {
 public:
  virtual ~batch_applier() = default;

  // Applies one batch. dead_letters are the batch's undecodable messages; progress the
  // offsets it moves (empty for replays that do not touch offsets); metadata what its
  // messages taught besides rows. go: asked before every retry; false abandons the batch.
  // Throws session_error when the session gives up, and the target's error when it is fatal.
  virtual apply_result apply(const merged_batch& batch,
                             const std::vector<dead_letter>& dead_letters,
                             const std::vector<partition_progress>& progress,
                             const batch_metadata& metadata = {}, const keep_going& go = {}) = 0;

  // Called in the batch transaction just before it commits, with the dead letters the apply
  // itself found: the runtime produces them to the dead-letter topic, so that they are in
  // Kafka before the batch commits. A throw aborts the transaction.
  using dead_letter_sink = std::function<void(const std::vector<const dead_letter*>&)>;
  virtual void set_dead_letter_sink(dead_letter_sink sink) = 0;

  // `sluice dead-letters replay`: the stored letters the next batches re-apply (*ids, read at
  // each attempt; it outlives the applier) are deleted in the batch transaction, so that a
  // letter leaves exactly when its rows are in.
  virtual void remove_replayed_letters(const std::vector<int64_t>* ids) = 0;
};

}  // namespace sluice::sink
