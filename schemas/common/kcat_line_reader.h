#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "core/model/kafka_timestamp.h"
#include "core/model/named_type.h"
#include "core/model/raw_message.h"
#include "core/model/result.h"
#include "schemas/common/json_value_reader.h"
#include "schemas/common/padded_buffer.h"

namespace sluice {

// One Kafka message as `kcat -C -J` printed it, with its bytes owned: what `sluice replay`
// and `sluice decode --kafka-json` feed to the decoders instead of a consumed message.
struct kcat_message {
  std::string topic;
  partition_id partition{0};
  kafka_offset offset{0};
  timestamp_ns timestamp{0};  // Kafka message timestamp (kcat prints milliseconds); 0: none
  // "ts" as kcat printed it (-1: none), unchecked, and whose clock it is ("tstype"): what
  // `sluice replay` range-checks as `sluice run` checks a consumed message's. `timestamp`
  // holds it when nanoseconds can (1 ms or later, before 2262), else 0.
  int64_t timestamp_ms = -1;
  timestamp_type clock = timestamp_type::create_time;
  std::optional<std::string> key;
  std::optional<std::string> payload;  // nullopt: a Kafka tombstone
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;

  // The message as a decoder takes it. Its views point into this object: valid until it
  // is read into again or destroyed.
  raw_message view() const;
};

// Parses the lines `kcat -C -J` prints, one JSON object per message:
//   {"topic":"t","partition":0,"offset":17,"tstype":"create","ts":1767225600000,"broker":1,
//    "headers":["name","value",...],"key":"k","payload":"{\"a\":1}"}
// `topic`, `partition`, `offset` and `payload` are required; `key` (string or null), `ts`,
// `tstype` ("logappend": the broker's clock; anything else: the producer's), `headers` (the
// alternating array, or kcat's name → [values] map form) are optional; `broker` and unknown
// members are validated and ignored. key and payload must be
// JSON strings or null: kcat's Avro-decoded output (`-s avro`) is refused, since the
// decoders take the message bytes.
//
// Strings are unescaped byte for byte. kcat (yajl) escapes control bytes but copies bytes
// >= 0x80 as they are, so a binary key or payload makes the line invalid UTF-8: the reader
// still accepts it (it hides such bytes from simdjson's UTF-8 check and unescapes the
// original bytes itself), so the message gets its exact bytes back.
//
// Errors are values naming what is wrong; nothing throws for bad input.
//
// Lifecycle: one per reading thread, reused for every line (it keeps its parser and
// buffers). Threading: not thread-safe.
class kcat_line_reader {
 public:
  // Reads one line (a trailing "\r" or whitespace is ignored) into out, reusing its storage.
  // On error out is left in an unspecified state.
  std::optional<error> read(std::string_view line, kcat_message& out);

 private:
  std::optional<error> read_member(std::string_view name, simdjson::ondemand::value v,
                                   kcat_message& out);
  std::optional<error> read_string(simdjson::ondemand::value v, std::string& out);
  std::optional<error> read_optional_string(simdjson::ondemand::value v,
                                            std::optional<std::string>& out);
  std::optional<error> read_headers(simdjson::ondemand::value v, kcat_message& out);

  simdjson::ondemand::parser _parser;
  padded_buffer _buffer;
  json_value_reader _values{64};
  std::string _sanitized;         // the line with invalid UTF-8 bytes masked, when it has some
  std::string_view _line;         // the original line: strings are unescaped from its bytes
  const char* _parsed = nullptr;  // start of the buffer simdjson parses (same offsets)
};

}  // namespace sluice
