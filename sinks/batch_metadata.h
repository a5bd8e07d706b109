#pragma once

#include <vector>

#include "core/model/decoded.h"

namespace sluice {

// What a batch's messages taught besides rows (decode_output::catalog and ::ddl): written
// by batch_applier::apply in the batch transaction, after the table writes (SPEC §4 "Batch
// transaction"), so that it is kept exactly when the offsets move past the messages.
struct batch_metadata {
  std::vector<catalog_update> catalog;
  std::vector<ddl_record> ddl;
  // Pieces of chunked records (decode_output::pieces), kept or completed (chunk_store.h).
  std::vector<chunk_piece> pieces = {};
  // The newest Kafka timestamp of the batch's messages: chunk.timeout is measured in it.
  timestamp_ns stream_time = timestamp_ns{0};

  bool empty() const { return catalog.empty() && ddl.empty() && pieces.empty(); }
};

}  // namespace sluice
