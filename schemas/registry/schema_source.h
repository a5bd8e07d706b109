#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "core/model/result.h"
#include "schemas/registry/confluent_frame.h"

namespace sluice {

// A writer schema as a Schema Registry holds it.
struct registered_schema {
  schema_id id;
  std::string type;  // "AVRO" (the registry's default when it names none), "JSON", "PROTOBUF"
  std::string text;  // the schema itself, e.g. Avro's JSON
};

// Where a decoder of Confluent-framed messages gets the writer schema of a frame's id
// (SPEC §3). Implemented by connector/registry/schema_registry_client.h; the decoder only
// sees this interface.
//
// Threading: schema() may be called from any decode thread concurrently. Schemas are
// immutable once returned and may be kept as long as wanted.
class schema_source {
 public:
  virtual ~schema_source() = default;

  // The schema with this id. Two kinds of failure, as everywhere in sluice:
  //   - the id is not in the registry: an error value (unsupported, "schema id N is not in the
  //     registry at URL"); the message that named it is a dead letter;
  //   - the registry cannot answer (unreachable, timing out, 5xx): schema() waits it out, the
  //     connector DEGRADED meanwhile, and returns once it answers. If a stop is requested
  //     during the wait it throws schema_source_stopped; if the registry refuses sluice
  //     (401/403, not a registry at all) it throws schema_source_refused. Neither is the
  //     message's fault: it must be neither dead-lettered nor passed.
  virtual result<std::shared_ptr<const registered_schema>> schema(schema_id id) = 0;
};

// A stop request ended a wait for the registry.
class schema_source_stopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The registry refuses sluice in a way only a human can fix (credentials, a URL that is not
// a Schema Registry): the connector goes FAILED with this reason.
class schema_source_refused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace sluice
