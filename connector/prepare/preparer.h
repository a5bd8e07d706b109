#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "connector/base/lane_batch.h"
#include "connector/config/config.h"
#include "connector/prepare/change_rules.h"
#include "connector/prepare/topic_decoders.h"
#include "connector/source/source_message.h"
#include "core/catalog/table_filter.h"
#include "core/merge/merge_engine.h"

namespace sluice {

// The prepare stage's rules for one message, the same for every driver — `run` (Kafka),
// `replay` (kcat lines, Avro files) and `dead-letters replay` (stored letters) — so a rule
// is written once and a message is treated alike whichever way it came:
//
//   add(message, lane):
//     the source could not read it       -> dead letter (its bytes, its reason)
//     timestamp range-checked            -> an absurd one is bad input like an undecodable
//                                           value: never converted, never on the batch's clock
//     decode (the topic's decoder)       -> changes | catalog updates | DDL | chunk pieces
//     a dead letter (errors.tolerance: all), or stop (none: nothing of it enters the batch)
//     transforms (RegexRouter: the topic routed by; the others: the change, Filter drops it;
//       transform_chain.h), then the key and insert modes (key_mode_step.h), then field rules
//       (fields.*, tables.<source>.fields.*, matched against the routed topic): columns left
//       out or renamed before the merge; a change they cannot apply to makes the message a
//       dead letter (or stop)
//     drop the changes of tables tables.include / tables.exclude leave out (a message left
//       with none is `filtered`; its offset moves on like any other)
//   add_changes(changes, lane): changes read back from a stored letter enter here, after
//     decoding and the field rules, never decoded again; the table filter applies to them
//   take(): closes the batch, one lane_batch per lane, each lane's changes merged by key, each
//     table's topic (what ${topic} routes by) renamed by the RegexRouters
//
// What is not a rule of the message is the driver's: which lane, which offsets move (the
// Kafka driver's partition table), when a batch closes, what a stop means.
//
// Lifecycle: one per driver; the config and decoders outlive it. Threading: one thread (the
// decoders own their parsers).
class preparer {
 public:
  enum class verdict { decoded, filtered, dead_lettered, stop };

  preparer(const config& c, topic_decoders& decoders, size_t lanes);

  // Prepares one message into `lane` of the open batch (its raw.timestamp is set from the
  // checked timestamp_ms; refused, from the refused one where nanoseconds can hold it). On
  // dead_lettered and stop, last_reason() says why, naming the
  // message ("where: code: message"). Throws std::invalid_argument for a topic whose format
  // is not supported (a configuration error).
  verdict add(source_message& m, size_t lane);
  // Changes read back from a stored letter (moved from): no decode, no timestamp.
  verdict add_changes(std::vector<change>& changes, size_t lane);
  const std::string& last_reason() const { return _reason; }

  // The open batch's messages and bytes (keys and values), for drivers that close batches
  // by batch.size and batch.max.bytes.
  size_t messages() const { return _messages; }
  size_t bytes() const { return _bytes; }
  // Closes the open batch: one lane_batch per lane (index = lane), each lane's changes
  // merged; the next add() opens a new one.
  std::vector<lane_batch> take();

 private:
  // Keeps the changes from index `first` on whose table the filter allows; true when there
  // were some and none is left.
  bool filter_changes(decode_output& out, size_t first);
  verdict refuse(const source_message& m, lane_batch& lane, const error& e);
  // Applies the transforms and the field rules to the changes from index `first` on, come in
  // `raw`; why not, when they cannot. `dropped`: there were some and a Filter dropped them all.
  std::optional<std::string> transform_changes(decode_output& out, size_t first,
                                               const raw_message& raw, bool& dropped);

  const config& _config;
  topic_decoders& _decoders;
  table_filter _filter;
  change_rules _rules;
  std::vector<lane_batch> _lanes;
  std::vector<decode_output> _decoded;  // per lane: the open batch's decoded changes
  std::vector<merge_engine> _merges;    // per lane: each keeps its own scratch
  size_t _messages = 0, _bytes = 0;
  timestamp_ns _now{0};  // this machine's clock, read at each batch's first message
  std::string _reason;
};

// The dead letter for a message that could not be used: its origin, key, value, headers.
dead_letter make_dead_letter(const raw_message& m, std::string reason);

}  // namespace sluice
