#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "connector/config/config.h"
#include "connector/kafka/kafka_consumer.h"
#include "connector/runtime/connector_state.h"
#include "core/catalog/table_catalog.h"
#include "core/merge/merge_engine.h"
#include "core/model/batch_records.h"

namespace sluice {

class decoder;
class pg_applier;

// The one place that knows every stage (STYLE.md #1):
//
//   loop:
//     poll Kafka until the batch closes (rows, bytes or time)
//     decode each message → changes, or a dead letter (errors.tolerance: all)
//                                      or stop before it (errors.tolerance: none)
//     merge the changes per (table, key) by CSN
//     apply: one PostgreSQL transaction = rows + dead letters + next offsets (epoch CAS)
//     commit the same offsets to Kafka asynchronously (for lag tools only)
//
// Partitions are claimed on assignment: the owner epoch is bumped in PostgreSQL and the
// consumer starts at the offset stored there (auto.offset.reset when there is none). A batch
// whose epoch compare-and-set fails is abandoned for the fenced partitions, never retried as
// if nothing happened.
//
// Threading: run() is called on one thread and everything happens on it; stop() may be
// called from any thread (a signal handler sets the flag it reads).
class pipeline : public assignment_listener {
 public:
  explicit pipeline(const config& cfg);
  ~pipeline() override;

  // Runs until stop_requested becomes true (then drains: the batch in flight is applied
  // and committed) or the connector fails. Returns the process exit code.
  int run(const std::atomic<bool>& stop_requested);
  const state_holder& state() const { return _state; }

  std::vector<int64_t> on_assigned(const std::vector<topic_partition>& parts) override;
  void on_revoked(const std::vector<topic_partition>& parts, bool lost) override;

 private:
  struct partition_state {
    owner_epoch epoch{0};
    kafka_offset committed{-1};  // next offset stored in PostgreSQL; -1: no row
    kafka_offset next{-1};       // next offset after the messages in the current batch
    bool fenced = false;         // another owner took it: drop its messages
  };

  decoder& decoder_for(std::string_view topic);
  // Decodes, merges and applies the current batch; returns false if the connector failed.
  bool flush();
  // The batch's messages up to (not including) index `end` are applied. Returns false when
  // the epoch of some partition was lost (those partitions are fenced).
  bool apply_messages(size_t end);
  void drop_partitions(const std::vector<topic_partition>& parts);

  const config& _config;
  state_holder _state;
  table_catalog _catalog;
  merge_engine _merge;
  std::map<std::string, std::unique_ptr<decoder>, std::less<>> _decoders;  // by topic
  std::unique_ptr<pg_applier> _applier;
  std::map<topic_partition, partition_state> _partitions;
  std::vector<kafka_message> _batch;
  size_t _batch_bytes = 0;
  // Declared last: destroyed first, so the consumer leaves the group while the applier that
  // its rebalance callbacks use still exists.
  std::unique_ptr<kafka_consumer> _consumer;
};

}  // namespace sluice
