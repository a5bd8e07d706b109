#pragma once

#include <cstdint>
#include <string_view>

#include "core/model/named_type.h"
#include "core/model/result.h"

namespace sluice {

// A Schema Registry schema id, as the Confluent wire format carries it.
using schema_id = named_type<std::int32_t, struct schema_id_tag>;

// One message in the Confluent wire format: magic byte 0, the writer schema's id as a 4-byte
// big-endian integer, then the payload (Avro binary for the formats sluice reads).
//
// `payload` points into the message it was parsed from and must not outlive it.
struct confluent_frame {
  schema_id id;
  std::string_view payload;
};

// The header's size: magic byte and schema id.
inline constexpr std::size_t confluent_header_bytes = 5;

// Splits a message into schema id and payload; an error (unsupported) when it is shorter than
// the header, its first byte is not 0 or its schema id is not positive (invalid_schema_id: a
// dead letter, never a registry request). Pure, no allocation on success.
result<confluent_frame> parse_confluent_frame(std::string_view message);

// "schema id N is not a valid registry id" (unsupported): registries number schemas from 1.
error invalid_schema_id(schema_id id);

}  // namespace sluice
