#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/model/kafka_timestamp.h"
#include "core/model/raw_message.h"
#include "core/model/result.h"

namespace sluice {

// A message as a source hands it to the prepare stage, before any rule is applied: the
// Kafka consumer's, a kcat line's, an Avro file block's or a stored dead letter's. Views
// only: valid until the source reads on.
struct source_message {
  raw_message raw;  // raw.timestamp is left unset: prepare checks timestamp_ms and sets it
  // The Kafka timestamp as the source read it (ms since 1970; -1: none) and whose clock it
  // is, range-checked by prepare like everything else about the message.
  int64_t timestamp_ms = -1;
  timestamp_type clock = timestamp_type::create_time;
  // The source could not make a message of what it read (a line that is not a kcat record,
  // an Avro file cut short): why, in the words of the dead letter's reason, with what bytes
  // it had in raw.value. Prepare makes it a dead letter like a message it cannot decode.
  std::optional<error> unreadable;
  // Each change of the message gets raw.offset + its index as its origin offset (the
  // records of an Avro file's block, numbered within the replay).
  bool offset_per_record = false;
  // How a dead letter or a stop names it to the person watching (a file and line, a letter's
  // id); empty: topic[partition]@offset.
  std::string_view where;
};

}  // namespace sluice
