#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/batch_records.h"

namespace sluice {

// Header names a dead letter carries in the dead-letter topic: a contract, like the state
// tables of SPEC §4. sluice's own, then Kafka Connect's (DeadLetterQueueReporter's
// __connect.errors.*, values as UTF-8 text), so that Connect tooling reads sluice's
// dead-letter topic as its own.
namespace dead_letter_header {
inline constexpr std::string_view reason = "__sluice.reason";
inline constexpr std::string_view topic = "__sluice.topic";
inline constexpr std::string_view partition = "__sluice.partition";
inline constexpr std::string_view offset = "__sluice.offset";
// What the letter is (dead_letter_kind: decode, routing, rejected, ddl_failed, keyless,
// chunk) and, when it is about one, its target table ("schema.table").
inline constexpr std::string_view kind = "__sluice.kind";
inline constexpr std::string_view target = "__sluice.target";
// Present only when the record was cut to fit: the original size in bytes of the parts cut,
// and which parts ("value", "headers", "key", "reason", comma-separated, in cutting order).
inline constexpr std::string_view truncated = "__sluice.truncated";
inline constexpr std::string_view truncated_part = "__sluice.truncated.part";
inline constexpr std::string_view connect_topic = "__connect.errors.topic";
inline constexpr std::string_view connect_partition = "__connect.errors.partition";
inline constexpr std::string_view connect_offset = "__connect.errors.offset";
inline constexpr std::string_view connect_connector = "__connect.errors.connector.name";
inline constexpr std::string_view connect_exception_class = "__connect.errors.exception.class.name";
inline constexpr std::string_view connect_exception_message = "__connect.errors.exception.message";
// sluice has no exception classes: every letter names the same one.
inline constexpr std::string_view exception_class_value = "sluice.dead_letter";
}  // namespace dead_letter_header

// One dead letter as it is produced to the dead-letter topic: its original key, value and
// headers, then the headers above. When the whole does not fit `budget` bytes (what the topic
// takes less the record batch's own framing), the value is cut (its first bytes kept); when
// the key and the original headers alone do not fit, the original headers are dropped; when
// the key alone does not, it is cut; the reason only when nothing else is left. Whatever room
// is left keeps the value's first bytes. The full bytes stay in sluice.dead_letters, written
// by the batch transaction.
//
// key and value view into the letter, which must outlive the record.
struct dead_letter_record {
  struct header {
    std::string name;
    std::optional<std::string> value;
  };

  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  std::vector<header> headers;

  // Bytes the record takes in a record batch, its framing counted at its widest.
  size_t size() const;
};

// `connector` names the connector in __connect.errors.connector.name (left out when empty).
// The result is at most `budget` bytes unless even a record with no value, key, original
// headers or reason does not fit (a budget of a few hundred bytes).
dead_letter_record make_dead_letter_record(const dead_letter& letter, std::string_view connector,
                                           size_t budget);

}  // namespace sluice
