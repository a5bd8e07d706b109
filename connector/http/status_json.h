#pragma once

#include <string>
#include <string_view>

#include "connector/http/status_source.h"

namespace sluice {

// GET /status's body: Kafka Connect's connector status shape
//   {"name":..,"connector":{"state":..,"worker_id":..[,"trace":..]},
//    "tasks":[{"id":0,"state":..,"worker_id":..[,"trace":..]}],"type":"sink",
// plus sluice's own fields
//    "assigned":[{"topic":..,"partition":..,"committed_offset":..,"high_watermark":..,
//                 "lag":..}],"last_error":..}
// "trace" (the last error) appears in FAILED only, as in Kafka Connect; unknown offsets, lag
// and a missing last error are null. sluice runs one task per process: task 0.
std::string to_json(const connector_status& status, std::string_view worker_id);

}  // namespace sluice
