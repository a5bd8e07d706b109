#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/change.h"
#include "core/model/named_type.h"

namespace sluice {

// A message sluice could not use, kept with its reason and raw bytes (SPEC §4). Written in
// the same transaction as the batch it was consumed in.
struct dead_letter {
  std::string reason;
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
