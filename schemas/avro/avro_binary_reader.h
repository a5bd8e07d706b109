#pragma once

#include <optional>
#include <string_view>

#include <avro.h>

#include "core/model/result.h"
#include "schemas/avro/avro_schema_info.h"

namespace sluice {

// Reads one Avro binary record that is the whole of its bytes (the body of a Confluent frame):
// checked first (check_avro_record: every length, count and branch fits), then read by Avro C
// over exactly the checked bytes into the writer schema's generic value. Bytes left after the
// record are an error (invalid_avro).
//
// Lifecycle: one per decoder (it keeps one Avro C memory reader). Threading: as its decoder.
class avro_binary_reader {
 public:
  avro_binary_reader();
  ~avro_binary_reader();
  avro_binary_reader(const avro_binary_reader&) = delete;
  avro_binary_reader& operator=(const avro_binary_reader&) = delete;

  std::optional<error> read(std::string_view body, const avro_node& schema, size_t max_depth,
                            avro_value_t& into);

 private:
  avro_reader_t _reader = nullptr;
};

}  // namespace sluice
