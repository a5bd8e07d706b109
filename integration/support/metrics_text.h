#pragma once

// What end-to-end tests read from sluice's /metrics text (Prometheus exposition format).

#include <string>

namespace sluice::testing {

// The value of the first sample line of `metrics` that starts with `prefix` (a series name,
// or a name with the start of its labels: sluice_state{state="RUNNING"}); -1 when none does.
double metric_sample(const std::string& metrics, const std::string& prefix);

}  // namespace sluice::testing
