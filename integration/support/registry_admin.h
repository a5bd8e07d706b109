#pragma once

#include <string>

#include "schemas/registry/schema_source.h"

namespace sluice::testing {

// Registers an Avro schema (its JSON text) under `subject` through the Schema Registry's
// Confluent API (services.h: registry_url()), as AvroConverter's serializer does; returns the
// id the registry assigned. Throws when the registry refuses it.
schema_id register_schema(const std::string& subject, const std::string& schema_text);

}  // namespace sluice::testing
