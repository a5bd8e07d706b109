#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/merge/merged_batch.h"
#include "core/model/batch_records.h"
#include "core/model/decoded.h"

namespace sluice {

// What the prepare stage hands to one apply lane: everything one transaction writes. Owns
// its data (the raw messages are released once decoded). In base/, the floor both stages
// stand on, so that neither includes the other.
struct lane_batch {
  uint64_t generation = 0;
  merged_batch merged;
  std::vector<dead_letter> dead_letters;
  std::vector<partition_progress> progress;
  std::vector<catalog_update> catalog;
  std::vector<ddl_record> ddl;
  std::vector<chunk_piece> pieces;  // chunked records, reassembled by the applier
  size_t messages = 0;
  // The Kafka timestamp (ns; 0 when none) of every message, for the end-to-end latency
  // histogram: one sample per message once the batch commits.
  std::vector<int64_t> message_timestamps;
  timestamp_ns newest_message{0};  // Kafka timestamp: the applier's stream time
  std::string poison;              // set: apply, then fail (errors.tolerance: none)
};

}  // namespace sluice
