#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "connector/config/config.h"
#include "connector/metrics/decode_probe.h"
#include "connector/metrics/merge_probe.h"
#include "connector/runtime/batches.h"
#include "connector/runtime/partition_table.h"
#include "core/catalog/table_catalog.h"
#include "core/catalog/table_filter.h"
#include "core/merge/merge_engine.h"
#include "schemas/common/decoder.h"
#include "schemas/registry/schema_source.h"

namespace sluice {

// The prepare stage: decodes a raw batch, splits it by apply lane (a partition always goes to
// the same lane, so each lane sees its partitions in order) and merges each lane's changes.
//
//   prepare(raw):
//     for each message of an owned partition:
//       timestamp range-checked (an absurd one is bad input, like an undecodable value)
//       decode → changes | catalog updates | DDL, or a dead letter (errors.tolerance: all),
//                or a poison mark that cuts the partition there (errors.tolerance: none)
//       drop the changes of tables tables.include / tables.exclude leave out (a message
//                left with none is counted filtered; its offset moves on like any other)
//       next offset of its partition = offset + 1
//     per lane: merge, progress = (epoch, expected = previous dispatch, next)
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
    _registry = std::move(registry);
  }

 private:
  decoder& decoder_for(const std::string& topic);
  // Drops the changes from index `first` on whose table the filter leaves out; true when
  // there were some and none is left.
  bool filter_changes(decode_output& out, size_t first);

  const config& _config;
  table_catalog& _catalog;
  partition_table& _partitions;
  size_t _lanes;
  std::map<std::string, std::unique_ptr<decoder>, std::less<>> _decoders;
  std::shared_ptr<schema_source> _registry;
  // Under errors.tolerance none, partitions whose poison message was met: nothing of theirs
  // is prepared again. Later batches may be prepared before the lane applying the poison's
  // batch turns the connector FAILED; their offsets would commit past the poison.
  std::set<topic_partition> _poisoned;
  table_filter _filter;
  std::vector<merge_engine> _merges;  // one per lane: each keeps its own scratch
  decode_probe _decode_probe;
  merge_probe _merge_probe;
};

// The dead letter for a message that could not be used.
dead_letter make_dead_letter(const raw_message& m, std::string reason);
// A view of a librdkafka message (valid while the message lives), without its timestamp.
raw_message to_raw_message(const rd_kafka_message_t& m);
// The message's Kafka timestamp, range-checked against this machine's clock `now`
// (core/model/kafka_timestamp.h); an absurd one is a bad_timestamp error naming its type.
result<timestamp_ns> message_timestamp(const rd_kafka_message_t& m, timestamp_ns now);
topic_partition partition_of(const rd_kafka_message_t& m);

}  // namespace sluice
