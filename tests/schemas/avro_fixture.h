#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "schemas/datastream/datastream_decoder.h"

namespace sluice {

// The bytes of a committed Datastream Avro fixture (tests/fixtures/datastream_avro/, written by
// its generate.py with fastavro).
inline std::string avro_fixture(const std::string& name) {
  std::ifstream in(std::string(SLUICE_SOURCE_DIR) + "/tests/fixtures/datastream_avro/" + name,
                   std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A Datastream decoder with its own catalog and output, for decoding one container (one Kafka
// message) at a time: decode() appends to out.
struct datastream_fixture {
  table_catalog catalog;
  datastream_decoder decoder;
  decode_output out;

  explicit datastream_fixture(size_t max_message_bytes = decode_limits{}.max_message_bytes)
      : decoder(catalog, options(max_message_bytes)) {}

  static datastream_options options(size_t max_message_bytes) {
    datastream_options o;
    o.limits.max_message_bytes = max_message_bytes;
    return o;
  }

  std::optional<error> decode(std::string_view bytes) {
    raw_message msg;
    msg.topic = "ds";
    msg.offset = kafka_offset{7};
    msg.value = bytes;
    return decoder.decode(msg, out);
  }
};

}  // namespace sluice
