#pragma once

#include <optional>

#include "core/model/csn.h"
#include "core/model/named_type.h"
#include "core/model/result.h"
#include "schemas/common/json_value_reader.h"

namespace sluice {

// Builds the CSN of a GoldenGate record (SPEC §2, §3). Part 0 is the read class, always 1
// (GoldenGate sends CDC only); then, most significant first:
//
//   with csn      [1, csn, op_seq]        the operation sequence, when the record has one
//                 [1, csn, kafka offset]  otherwise: orders the operations of one transaction
//                                         (they share its commit CSN) as the topic holds them
//   without csn   [1, op_ts ns, kafka offset]
//
// csn and op_seq are compared as what they are: an integer (a JSON number or a numeric
// string: Oracle SCNs) or a PostgreSQL LSN "16/B374D848" (hi<<32 | lo) is an int64 part,
// anything else a string part (compared bytewise: fixed-width positions order correctly).
//
// The Kafka offset is only a valid order within one partition: ordering by op_ts and offset,
// or the operations of one transaction by offset, is correct only when the topic is keyed by
// primary key (all changes of a row in one partition). With op_ts alone, changes of one row
// in the same microsecond are told apart by offset only.
//
// Lifecycle: one per decoder (it reuses a csn_builder). Threading: as its decoder.
class goldengate_ordering {
 public:
  // csn / op_seq: the record's tokens, or null when the record has none. Returns an empty
  // csn when the record has neither csn nor op_ts (the caller decides whether that is an
  // error); errors when csn or op_seq is not a string or a number.
  result<csn> sequence(const json_token* csn_token, const json_token* op_seq,
                       std::optional<timestamp_ns> op_ts, kafka_offset offset);

 private:
  void add_position(const json_token& token);

  csn_builder _builder;
};

}  // namespace sluice
