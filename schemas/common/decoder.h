#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/change.h"
#include "core/model/decoded.h"
#include "core/model/raw_message.h"
#include "core/model/result.h"

namespace sluice {

// Bounds on what one message may contain (SPEC §3); bigger or deeper input is an error.
// The message a change came from, written over `out` (its topic keeps its capacity).
inline void assign_origin(message_origin& out, const raw_message& msg) {
  out.topic.assign(msg.topic);
  out.partition = msg.partition;
  out.offset = msg.offset;
  out.timestamp = msg.timestamp;
}

struct decode_limits {
  size_t max_message_bytes = 16 << 20;
  size_t max_depth = 64;
  size_t max_columns = 4096;

  // A too_large error when bytes exceed max_message_bytes; `what` names them in the message.
  std::optional<error> check_size(std::string_view bytes, std::string_view what = "message") const {
    if (bytes.size() <= max_message_bytes) return std::nullopt;
    return make_error(error_code::too_large, std::string(what) + " of " +
                                                 std::to_string(bytes.size()) + " bytes exceeds " +
                                                 std::to_string(max_message_bytes));
  }
};

// Turns one Kafka message of one envelope family into zero or more changes, catalog updates
// or DDL records (SPEC §3).
// Bad input is returned as an error naming what is wrong; decode never throws for it and
// never appends a partial result.
//
// Stage: decode. Threading: one instance per decode thread (it owns a reused parser and
// padded buffer); the catalog it was given is shared.
class decoder {
 public:
  virtual ~decoder() = default;
  // Appends what the message says to out. Returns an error (and appends nothing) when the
  // message cannot be used.
  virtual std::optional<error> decode(const raw_message& msg, decode_output& out) = 0;
};

}  // namespace sluice
