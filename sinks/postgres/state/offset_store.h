#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pqxx/transaction_base>

#include "core/model/batch_records.h"
#include "core/model/named_type.h"
#include "sinks/offsets.h"
#include "sinks/postgres/session/state_schema.h"

namespace sluice {

// <schema>.offsets, keyed by connector name (SPEC §4 "Batch transaction"). Every statement
// is one round trip whatever the number of partitions. Works inside the caller's
// transaction; holds no connection. Threading: none of its own.
class offset_store {
 public:
  offset_store(const state_schema& schema, std::string connector);

  // Bumps the owner epoch of each partition (creating rows with next_offset NULL) and
  // returns the new epochs and stored offsets, in partition order.
  std::vector<claimed_partition> claim(pqxx::transaction_base& tx, const std::string& topic,
                                       std::vector<partition_id> partitions) const;
  // The compare-and-set: moves each partition to its next offset where the stored epoch and
  // offset are still the expected ones. Returns the partitions that did NOT move, as
  // "topic[partition]" labels (empty: all moved).
  std::vector<std::string> advance(pqxx::transaction_base& tx,
                                   const std::vector<partition_progress>& progress) const;
  // Moves each partition to its target and bumps its owner epoch (creating the rows of
  // partitions never claimed), in (topic, partition) order like every writer of this table:
  // from this commit on, the compare-and-set of an owner that claimed before fails, so a
  // zombie cannot write over the reset. Returns the rows as they now are.
  std::vector<stored_offset> reset(pqxx::transaction_base& tx,
                                   const std::vector<offset_target>& targets) const;
  // Forgets the committed offset of each partition (every one of the connector when
  // `partitions` is empty): next_offset NULL, as a claim leaves it, so the next owner starts
  // from offsets.takeover.group or auto.offset.reset; the owner epoch is bumped as reset()
  // does. Returns the rows as they now are.
  std::vector<stored_offset> clear(pqxx::transaction_base& tx,
                                   const std::vector<offset_key>& partitions) const;
  // Every stored offset of the connector, by topic and partition.
  std::vector<stored_offset> read(pqxx::transaction_base& tx) const;
  // The stored offsets of the given partitions (for resolving an in-doubt commit), locked
  // FOR SHARE: a transaction still committing or rolling back on a lost connection holds
  // them, and the read waits for its outcome instead of guessing. Needs a read-write
  // transaction.
  std::vector<stored_offset> read(pqxx::transaction_base& tx,
                                  const std::vector<partition_progress>& progress) const;

 private:
  std::string _table;
  std::string _connector;
};

}  // namespace sluice
