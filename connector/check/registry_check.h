#pragma once

#include <chrono>

#include "connector/check/check_report.h"
#include "connector/config/config.h"

namespace sluice {

// `sluice check` on the Schema Registry, when one is configured: one GET {url}/subjects
// within `timeout` with the configured basic auth and TLS. 200 is ok; 401/403 a failure (the
// credentials); a certificate or key file that cannot be used a configuration error; no
// answer unreachable; any other answer a failure (not a Confluent-compatible registry?).
void check_registry(const config& c, check_report& report, std::chrono::milliseconds timeout);

}  // namespace sluice
