#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "connector/config/config.h"
#include "connector/prepare/preparer.h"
#include "connector/prepare/target_key_lookup.h"
#include "connector/prepare/topic_decoders.h"
#include "connector/source/source_message.h"
#include "core/merge/merge_engine.h"
#include "core/model/change.h"
#include "sinks/apply_stats.h"
#include "sinks/batch_applier.h"
#include "sinks/target.h"

namespace sluice {

// What a replay did, for its summary (cli/replay_summary.h).
struct replay_totals {
  size_t lines = 0;            // lines read, blank ones included (the file source counts)
  uint64_t bytes = 0;          // bytes read, newlines included (the file source counts)
  size_t messages = 0;         // messages (kcat records, Avro blocks, letters) prepared
  size_t invalid_lines = 0;    // lines that were not kcat records (dead-lettered, no origin)
  size_t undecodable = 0;      // messages the rules refused (dead-lettered)
  size_t changes = 0;          // changes decoded
  size_t catalog_updates = 0;  // written to the catalog table with their batch
  size_t ddl_records = 0;      // written to the DDL history with their batch
  size_t batches = 0;          // transactions committed
  merge_stats merge;           // summed over the batches
  apply_stats applied;         // summed over the batches
};

// The driver of `sluice replay` and `sluice dead-letters replay`: messages a source read
// (source/file_source.h, stored letters) through the prepare stage every driver shares
// (prepare/preparer.h: the same rules as `sluice run`), applied in one lane with no offsets:
//
//   add(message):       preparer.add(message, lane 0)
//                       a dead letter -> reported (origin or where, reason)
//                       stop (errors.tolerance: none) -> false; failure() names it
//                       batch.size messages or batch.max.bytes reached -> flush()
//   add_letter(message), add_changes(changes): the same, never flushing (the dead-letter
//                       driver flushes per page and deletes the page's letters in its
//                       transaction)
//   flush():            preparer.take(); apply the lane's merged rows, dead letters, catalog
//                       updates and DDL records in one transaction, progress empty:
//                       the offsets table is never touched
//
// Replaying a file twice changes no row (the CSN guards and tombstones refuse what the
// replica already has), but writes its dead letters again.
//
// Lifecycle: one per replay; call flush() after the last message (and after a stop, to
// apply everything before it). Threading: one thread. Errors of the database are thrown by
// flush() (batch_applier::apply); a topic whose format is not supported throws
// std::invalid_argument from add().
class replayer {
 public:
  // report is told each dead letter's origin and reason as it is found.
  replayer(const config& c, sink::batch_applier& applier,
           std::function<void(std::string_view)> report);

  // False when the replay must stop at this message (errors.tolerance: none); failure()
  // then names it. The message is not part of the batch.
  bool add(source_message& m);
  bool add_letter(source_message& m);
  // Changes read back from a stored letter (prepare/stored_letter.h); moved from.
  void add_changes(std::vector<change>& changes);
  // The catalog the decoders intern source tables in (stored letters name theirs too).
  table_catalog& catalog() { return _decoders.catalog(); }
  void flush();

  // The file source's counts of lines and bytes read, for the summary.
  void count_input(size_t lines, uint64_t bytes) {
    _totals.lines = lines;
    _totals.bytes = bytes;
  }
  const replay_totals& totals() const { return _totals; }
  const std::string& failure() const { return _failure; }

 private:
  bool prepare(source_message& m);

  const config& _config;
  sink::batch_applier& _applier;
  std::function<void(std::string_view)> _report;
  std::unique_ptr<sink::target> _target;  // the key lookup's
  target_key_lookup _keys;                // declared before _decoders, whose catalog asks it
  topic_decoders _decoders;
  preparer _preparer;
  size_t _batch_messages = 0;  // messages and letters in the open batch
  timestamp_ns _newest{0};     // newest Kafka timestamp replayed: chunk.timeout's clock
  replay_totals _totals;
  std::string _failure;
};

}  // namespace sluice
