#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/change.h"
#include "core/model/named_type.h"

namespace sluice {

// Why a dead letter is one, for filtering and for replaying it once the cause is fixed.
enum class dead_letter_kind : uint8_t {
  decode,      // the message could not be decoded (its raw bytes are kept)
  routing,     // its table cannot be routed: a bad name, a reserved target, a folded source
  rejected,    // the planner or PostgreSQL refused the row (bad data, a key mismatch)
  ddl_failed,  // its table could not be created or evolved (the PostgreSQL error is the reason)
  keyless,     // a keyless change under keyless: dead_letter
  chunk,       // a chunked record that expired, failed its checks, or could not be decoded
};
const char* to_string(dead_letter_kind kind);

// A message sluice could not use, kept with its reason and raw bytes (SPEC §4). Written in
// the same transaction as the batch it was consumed in. A letter made from a merged row
// (not one message) keeps what replaying it needs: the key, the image with each column's
// CSN, and the upsert and delete CSNs (sinks/plan/change_dead_letter.h).
struct dead_letter {
  std::string reason;
  dead_letter_kind kind = dead_letter_kind::decode;
  std::string target_schema;  // the target table, when the letter is about one
  std::string target_table;
  message_origin origin;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

// The offset a batch moves one partition to, with the compare-and-set guard of SPEC §4:
// the write succeeds only if the stored row still has this epoch and this offset.
struct partition_progress {
  std::string topic;
  partition_id partition{0};
  owner_epoch epoch{0};
  kafka_offset expected{-1};  // next offset stored before this batch; -1: no row yet
  kafka_offset next{0};       // next offset to consume after this batch
};

}  // namespace sluice
