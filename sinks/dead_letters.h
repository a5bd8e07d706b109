#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice {

// Which dead letters a `sluice dead-letters` command is about: every set member narrows.
struct dead_letter_filter {
  std::optional<std::string> table;   // the target, "schema.table" or a bare table name
  std::optional<std::string> kind;    // decode, routing, rejected, ddl_failed, keyless, chunk
  std::optional<std::string> reason;  // a piece of text the reason holds (case ignored)
  std::optional<std::string> topic;
  std::optional<std::string> since;  // created at or after (timestamp text the target reads)
  std::optional<std::string> until;  // created before
  std::vector<int64_t> ids;          // these letters only, when not empty
  std::optional<int64_t> up_to_id;   // ids at most this (what a listing saw)
};

// One stored dead letter as the commands show and replay it.
struct stored_dead_letter {
  int64_t id = 0;
  std::string created_at;  // ISO 8601, UTC
  std::string kind;        // empty for letters from before kinds were recorded
  std::string target;      // "schema.table", empty when the letter names none
  std::string reason;
  std::optional<std::string> topic;
  int32_t partition = 0;
  int64_t offset = -1;
  int64_t timestamp_ms = 0;  // the Kafka timestamp, 0 when none
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::string headers_json;  // "[]" when none
};

}  // namespace sluice
