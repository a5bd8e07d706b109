#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "connector/cli/topic_decoders.h"
#include "connector/config/config.h"
#include "connector/runtime/target_key_lookup.h"
#include "core/merge/merge_engine.h"
#include "core/model/batch_records.h"
#include "core/model/decoded.h"
#include "schemas/common/kcat_line_reader.h"
#include "sinks/postgres/apply_stats.h"
#include "sinks/postgres/batch_metadata.h"

namespace sluice {

class batch_applier;

// What a replay did, for its summary.
struct replay_totals {
  size_t lines = 0;            // lines read, blank ones included
  uint64_t bytes = 0;          // bytes read, newlines included
  size_t messages = 0;         // lines that were kcat records
  size_t invalid_lines = 0;    // lines that were not (dead-lettered with no origin)
  size_t undecodable = 0;      // messages the decoders refused (dead-lettered)
  size_t changes = 0;          // changes decoded
  size_t catalog_updates = 0;  // written to the catalog table with their batch
  size_t ddl_records = 0;      // written to the DDL history with their batch
  size_t batches = 0;          // transactions committed
  merge_stats merge;           // summed over the batches
  apply_stats applied;         // summed over the batches
};

// The summary `sluice replay` prints at the end (pure: the tests pin its text):
//   replay summary
//     messages      15
//     changes       14
//     rows written  6 (5 upserted, 1 deleted)
//     collapsed     3 (1 duplicate)
//     stale         2
//     dead letters  1
//     elapsed       0.42 s
std::string format_replay_summary(const replay_totals& t, double elapsed_seconds);

// Applies `kcat -C -J` records without Kafka (`sluice replay`), through the stages `run`
// uses — decode → merge → apply — but with no offsets:
//
//   add_line(line):
//     not a kcat record    -> dead letter (the line's bytes, no origin)  | tolerance none: stop
//     decode (the topic's decoder, its key included) -> the batch's changes
//                          or a dead letter (origin, key, value, headers) | tolerance none: stop
//     batch.size messages or batch.max.bytes reached -> flush()
//   flush():
//     merge the batch's changes per (table, key) by CSN
//     apply them, the batch's dead letters, catalog updates and DDL records in one
//       transaction, progress empty: sluice.offsets is never touched
//
// Replaying a file twice changes no row (the CSN guards and tombstones refuse what the
// replica already has), but writes its dead letters again.
//
// Lifecycle: one per replay; call flush() after the last line (and after a stop, to apply
// everything before the bad line). Threading: one thread. Errors of the database are thrown
// by flush() (batch_applier::apply); a topic whose format is not supported throws
// std::invalid_argument from add_line().
class replayer {
 public:
  // report is told each dead letter's origin and reason as it is found.
  replayer(const config& c, batch_applier& applier, std::function<void(std::string_view)> report);

  // Returns false when the replay must stop at this line (errors.tolerance: none); failure()
  // then names it. The line is not part of the batch.
  bool add_line(std::string_view line);
  // One block of a Datastream Avro file (avro_block_stream: the file's header + the block),
  // as a message of `topic`: its records' origin offsets count on from first_record (unique
  // within the replay); `where` (file and record) names it in dead letters. Same return as
  // add_line.
  bool add_avro_block(std::string_view topic, std::string_view where, uint64_t first_record,
                      std::string_view block);
  // Input that could not be read into messages (a cut or corrupt Avro file): one dead
  // letter naming `where`. Same return as add_line.
  bool add_unreadable(std::string_view topic, std::string_view where, uint64_t offset,
                      const error& e);
  // A stored dead letter's message (`sluice dead-letters replay`, kind decode), decoded as
  // add_line decodes a kcat record; `where` names it when it fails again. Never flushes: the
  // caller does, and deletes the batch's letters in its transaction. Same return as add_line.
  bool add_message(const raw_message& raw, std::string where);
  // Changes read back from a stored letter (stored_letter.h); moved from. Never flushes.
  void add_changes(std::vector<change>& changes);
  // The catalog the decoders intern source tables in (stored letters name theirs too).
  table_catalog& catalog() { return _decoders.catalog(); }
  // Counts input bytes read outside add_line (Avro files), for the progress bar.
  void add_bytes(uint64_t n) { _totals.bytes += n; }
  void flush();

  const replay_totals& totals() const { return _totals; }
  const std::string& failure() const { return _failure; }

 private:
  void dead_letter_or_stop(dead_letter d, std::string where);
  // Decodes raw into the batch, or makes it a dead letter (refused: the error it already
  // has). False when the replay must stop.
  bool decode_or_dead_letter(const raw_message& raw, std::string where,
                             std::optional<error> refused);

  const config& _config;
  batch_applier& _applier;
  std::function<void(std::string_view)> _report;
  target_key_lookup _keys;  // declared before _decoders, whose catalog asks it
  topic_decoders _decoders;
  kcat_line_reader _reader;
  kcat_message _record;
  merge_engine _merge;
  decode_output _pending;          // the batch's decoded changes
  std::vector<dead_letter> _dead;  // the batch's dead letters
  size_t _batch_messages = 0;
  size_t _batch_bytes = 0;
  timestamp_ns _newest{0};  // newest Kafka timestamp replayed: chunk.timeout's clock
  // The clock Kafka timestamps are checked against (read once: a day's bound does not care).
  const timestamp_ns _now{std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count()};
  replay_totals _totals;
  std::string _failure;
};

}  // namespace sluice
