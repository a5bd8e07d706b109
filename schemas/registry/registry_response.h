#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "schemas/registry/schema_source.h"

namespace sluice {

// What one answer to `GET {url}/schemas/ids/{id}` means for the caller.
enum class registry_outcome {
  found,        // schema is set
  not_found,    // 404 with Confluent error code 40403: the message is a dead letter
  unreachable,  // transport failure, timeout, 408, 429, 5xx: wait and ask again
  refused,      // 401, 403, other 4xx, an answer that is not a registry's: FAILED
};

struct registry_answer {
  registry_outcome outcome = registry_outcome::unreachable;
  std::shared_ptr<const registered_schema> schema;  // when found
  std::string reason;                               // otherwise: why, for a log or an error
};

// Classifies one HTTP exchange. `status` 0 means no HTTP answer at all; `transport_error`
// then says why (libcurl's text). `url` is the registry's base URL, for messages; it must not
// hold credentials. Pure: parses the body with simdjson, no I/O.
registry_answer classify_registry_response(std::string_view url, schema_id id, long status,
                                           std::string_view body,
                                           std::string_view transport_error = {});

}  // namespace sluice
