#pragma once

#include <memory>
#include <set>
#include <vector>

#include "connector/base/lane_batch.h"
#include "connector/base/partition_table.h"
#include "connector/config/config.h"
#include "connector/metrics/decode_probe.h"
#include "connector/metrics/merge_probe.h"
#include "connector/prepare/preparer.h"
#include "connector/prepare/topic_decoders.h"
#include "connector/source/raw_batch.h"
#include "core/catalog/table_catalog.h"
#include "schemas/registry/schema_source.h"

namespace sluice {

// The prepare stage of `sluice run`: the messages the consumer read, through the same rules
// as every driver's (preparer.h), split by apply lane — a partition always goes to the same
// lane, so each lane sees its partitions in order — with the offsets each lane commits.
//
//   prepare(raw):
//     for each message of an owned partition:
//       preparer.add(message, its partition's lane)
//       stop (errors.tolerance: none) -> the partition is poisoned: its lane's batch is
//                                        applied up to the message, then the connector fails
//       next offset of its partition = offset + 1
//     preparer.take(); per lane: progress = (epoch, expected = previous dispatch, next)
//
// Threading: one thread (it owns the decoders, which own their parsers); the catalog is
// shared with nothing else at decode time.
class batch_preparer {
 public:
  batch_preparer(const config& cfg, table_catalog& catalog, partition_table& partitions,
                 size_t lanes, metrics_registry& metrics);

  // One lane_batch per lane that has anything to commit (index = lane; empty progress means
  // nothing for that lane).
  std::vector<lane_batch> prepare(raw_batch&& raw);
  // Where the decoders made from now on find Confluent-framed messages' schemas (before the
  // first message: the pipeline sets it at start-up).
  void set_schema_source(std::shared_ptr<schema_source> registry) {
    _decoders.set_schema_source(std::move(registry));
  }

 private:
  partition_table& _partitions;
  topic_decoders _decoders;
  preparer _preparer;
  // Under errors.tolerance none, partitions whose poison message was met: nothing of theirs
  // is prepared again. Later batches may be prepared before the lane applying the poison's
  // batch turns the connector FAILED; their offsets would commit past the poison.
  std::set<topic_partition> _poisoned;
  decode_probe _decode_probe;
  merge_probe _merge_probe;
};

}  // namespace sluice
