#pragma once

#include <cstdint>
#include <string>

#include "sinks/apply_stats.h"

namespace sluice {

// How a batch ended.
enum class apply_outcome : uint8_t {
  committed,  // rows, dead letters and offsets are in the target
  stale,      // the offsets compare-and-set failed (another owner holds a partition, or the
              // stored offset moved): nothing was kept; the caller abandons the work and
              // re-reads its assignment — it must not retry it as if nothing happened
  abandoned,  // keep_going said stop while waiting out a failure: nothing is known to be kept
              // (an in-doubt commit stays unresolved; the offsets say, on the next claim)
};

struct apply_result {
  apply_outcome outcome = apply_outcome::committed;
  apply_stats stats;
  std::string why;  // stale, abandoned: what happened
};

}  // namespace sluice
