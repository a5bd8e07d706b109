#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "core/model/raw_message.h"
#include "core/model/result.h"
#include "schemas/avro/avro_schema_info.h"
#include "schemas/common/format_detector.h"
#include "schemas/registry/schema_source.h"

namespace sluice {

// The envelope family an Avro writer schema describes, from its root record's fields:
//   `source_metadata` or `payload`         -> datastream (a Datastream event record)
//   `op` and `source`, `before` or `after` -> debezium (a Debezium envelope)
//   anything else (a key schema, a plain record) -> unknown
detected_format avro_schema_family(const avro_node& root);

// For `format: auto`: the family of a Confluent-framed message, told by its writer schema
// (SPEC §3), each schema id classified once. The schema comes from the registry (which
// waits out an outage and may throw schema_source_stopped / _refused, as for the decoders).
//
// Errors: the frame's (a short message, a bad id), the registry's (an unknown id), or the
// schema's (not Avro, not parseable): the message is a dead letter.
//
// Lifecycle: one per auto decoder. Threading: as its decoder.
class confluent_family_finder {
 public:
  confluent_family_finder(std::shared_ptr<schema_source> registry, size_t max_depth)
      : _registry(std::move(registry)), _max_depth(max_depth) {}

  result<detected_format> family(const raw_message& msg);

 private:
  std::shared_ptr<schema_source> _registry;
  size_t _max_depth;
  std::unordered_map<int32_t, detected_format> _known;  // by schema id
};

}  // namespace sluice
