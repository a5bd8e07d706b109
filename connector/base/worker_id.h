#pragma once

#include <string>

namespace sluice {

// This process as a member of its connector: "host:pid" (Kafka Connect's worker_id names a
// worker by host and port; a member has no port of its own to offer, its HTTP port may be
// disabled or shared by address translation).
std::string local_worker_id();

}  // namespace sluice
