#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "core/model/result.h"
#include "schemas/common/padded_buffer.h"

namespace sluice {

// The envelope families `format: auto` tells apart (SPEC §3).
// confluent: a Confluent frame, whose family its registered schema tells
// (confluent_family_finder).
enum class detected_format : uint8_t { unknown, datastream, goldengate, dsql, debezium, confluent };

const char* to_string(detected_format format);

// Tells the envelope family of one message from its top-level member names, for
// `format: auto`. The precedence is fixed; the first rule that matches wins:
//
//   0. datastream  an Avro object container (the bytes start with "Obj" 0x01): Datastream's
//                  Avro events (its decoder tells Avro from JSON the same way)
//      confluent   the Confluent wire format: magic byte 0 (no JSON text starts with it) and
//                  at least the 5-byte header; the schema it names tells the family
//   1. goldengate  `op_type` or `qual_table` (DML, DDL, STREAM_METADATA, OBJECT_METADATA
//                  records), `$schema` (a JSON Schema record), or `specversion` (a
//                  CloudEvents envelope, whose `data` holds a GoldenGate record)
//   2. datastream  `source_metadata` and `payload`
//   3. dsql        `type` is "full" or "chunked" and `source` holds `cluster`; or `type` is
//                  "fragment" and `chunk_id` is there (fragments carry no source)
//   4. debezium    `op`, `source` and `before` or `after`; or a {schema, payload} wrapper
//                  whose `payload` object holds them
//   5. unknown     anything else (keys_seen() lists what was there)
//
// GoldenGate lets users rename its fields: renamed ones are not detected (configure
// `format: goldengate` for such topics). Only what the rules name is looked at: the values
// of `type` (a string), `source` and `payload` (their member names); every other value is
// skipped unread and unvalidated — the family's decoder validates the whole message.
//
// Lifecycle: one per decode thread (it owns a parser and padded buffer, reused).
// Threading: not thread-safe.
class format_detector {
 public:
  explicit format_detector(size_t max_message_bytes) : _max_message_bytes(max_message_bytes) {}

  // invalid_json when the top-level object cannot be read, too_large past
  // max_message_bytes. A root that is not an object (an array, a scalar, text that is not
  // JSON at all) is unknown.
  result<detected_format> detect(std::string_view message);

  // The top-level member names of the last message detect() looked at (at most 32), in
  // order. Views into the parser: valid until the next detect().
  const std::vector<std::string_view>& keys_seen() const { return _keys; }

 private:
  size_t _max_message_bytes;
  simdjson::ondemand::parser _parser;
  padded_buffer _buffer;
  std::vector<std::string_view> _keys;
};

}  // namespace sluice
