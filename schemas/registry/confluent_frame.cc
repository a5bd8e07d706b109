#include "schemas/registry/confluent_frame.h"

#include <string>

namespace sluice {

error invalid_schema_id(schema_id id) {
  return make_error(error_code::unsupported,
                    "schema id " + std::to_string(id.value()) + " is not a valid registry id");
}

result<confluent_frame> parse_confluent_frame(std::string_view message) {
  if (message.size() < confluent_header_bytes) {
    return make_error(error_code::unsupported,
                      "not the Confluent wire format: " + std::to_string(message.size()) +
                          " bytes, shorter than its 5-byte header (magic byte, schema id)");
  }
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(message[i]); };
  if (byte(0) != 0) {
    return make_error(error_code::unsupported, "not the Confluent wire format: magic byte is " +
                                                   std::to_string(byte(0)) + ", not 0");
  }
  const std::uint32_t id = (std::uint32_t{byte(1)} << 24) | (std::uint32_t{byte(2)} << 16) |
                           (std::uint32_t{byte(3)} << 8) | std::uint32_t{byte(4)};
  const auto signed_id = static_cast<std::int32_t>(id);
  // Registries number schemas from 1; bytes from 0x80 up would read as a negative id.
  if (signed_id <= 0) return invalid_schema_id(schema_id(signed_id));
  return confluent_frame{schema_id(signed_id), message.substr(confluent_header_bytes)};
}

}  // namespace sluice
